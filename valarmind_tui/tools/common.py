"""Helpers the built-in tools share: project paths, text checks, child processes, atomic writes."""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.core.errors import ToolError
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.content import read_regular_bytes
from valarmind_tui.safety.paths import relative, resolve_in_project
from valarmind_tui.tools.base import P, Tool, ToolContext, ToolResult

BINARY_SNIFF_BYTES = 8192



def resolve(ctx: ToolContext, path: str | Path) -> Path:
    """A tool's own check (defence in depth): raises PathOutsideProject, a ToolError."""
    return resolve_in_project(ctx.project_root, path)


def rel(ctx: ToolContext, path: Path) -> str:
    return relative(ctx.project_root.resolve(), path)


def looks_binary(data: bytes) -> bool:
    """NUL bytes in the first block, or text that is not UTF-8 even allowing a cut character."""
    head = data[:BINARY_SNIFF_BYTES]
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # a multi-byte character cut at the block's end is fine
    return False


def cap_middle(text: str, limit: int) -> str:
    """At most `limit` characters: the head and the tail, with what was left out said."""
    if len(text) <= limit:
        return text
    half = limit // 2
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n… [{omitted} characters omitted] …\n{text[-half:]}"


def unified_diff(old: str, new: str, name: str, *, new_file: bool = False) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile="/dev/null" if new_file else f"a/{name}", tofile=f"b/{name}",
    )
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n"
                   for ln in lines)


def diff_stats(diff: str) -> str:
    added = sum(1 for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---"))
    return f"+{added} -{removed}"


def read_text_file(path: Path) -> str:
    """The text of a file for editing; a ToolError-friendly ValueError when it is not text,
    NotRegularFile (a ToolError) for a FIFO, device or socket."""
    data = read_regular_bytes(path, path.name)
    if looks_binary(data):
        raise ValueError(f"{path.name} is a binary file")
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class ProcessResult:
    returncode: int | None
    """None when the process was killed (timeout or cancel)."""
    stdout: str
    stderr: str
    timed_out: bool = False
    cancelled: bool = False


def kill_group(pid: int) -> None:
    """SIGKILL the whole process group led by `pid` (started with start_new_session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def spawn(*argv: str, **kwargs: Any) -> asyncio.subprocess.Process:
    """Start a process in its own process group; if we are cancelled while it starts, its
    group is killed rather than leaked."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(*argv, start_new_session=True, **kwargs)
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            kill_group((await starting).pid)
        raise


async def wait_exit(proc: asyncio.subprocess.Process, poll_s: float = 0.02) -> int:
    """The exit code as soon as the process exits. (On 3.11 `proc.wait()` also waits for
    every holder of its pipes to close, e.g. a `sleep 99 &` it left behind.)"""
    while proc.returncode is None:
        await asyncio.sleep(poll_s)
    return proc.returncode


async def run_process(
    argv: Sequence[str], *, cwd: Path, timeout: float, cancel_event: asyncio.Event | None = None,
    env: Mapping[str, str] | None = None,
) -> ProcessResult:
    """Run a short helper process (git, rg) to completion, killing its group on timeout/cancel."""
    proc = await spawn(
        *argv, cwd=cwd, env=dict(env) if env is not None else child_env(cwd),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    comm = asyncio.ensure_future(proc.communicate())
    waiters: set[asyncio.Future[Any]] = {comm}
    cancel_wait = None
    if cancel_event is not None:
        cancel_wait = asyncio.ensure_future(cancel_event.wait())
        waiters.add(cancel_wait)
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        kill_group(proc.pid)
        comm.cancel()
        raise
    finally:
        if cancel_wait is not None:
            cancel_wait.cancel()
    if comm in done:
        out, err = comm.result()
        return ProcessResult(proc.returncode, _text(out), _text(err))
    kill_group(proc.pid)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(comm, 5)
    return ProcessResult(None, "", "", timed_out=not done, cancelled=bool(done))


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


class BuiltinTool(Tool[P]):
    """A built-in tool: `execute` does the work; OS errors become errors the model can read."""

    async def run(self, params: P, ctx: ToolContext) -> ToolResult:
        try:
            return await self.execute(params, ctx)
        except ToolError as exc:
            return ToolResult.error(str(exc))
        except OSError as exc:
            where = f" ({relative(ctx.project_root, exc.filename)})" if exc.filename else ""
            return ToolResult.error(f"{self.name} failed: {exc.strerror or exc}{where}")
        except ValueError as exc:
            return ToolResult.error(f"{self.name} failed: {exc}")

    async def execute(self, params: P, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError
