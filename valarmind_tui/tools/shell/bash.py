"""bash: run a shell command in the project root, in its own process group.

The child gets an allowlisted environment (no API keys), a timeout, and capped output (head and
tail kept). On timeout, on ctx.cancel_event and on task cancellation the whole process group is
killed, so `sleep 999 &` and friends do not outlive the call. With a sandbox (given at
construction, else ctx.sandbox) the command runs under bubblewrap: see safety/sandbox.py. A call
may ask for the network (`network: true`); the approval preview says so. With
`run_in_background` the command is handed to the session's background commands
(`tools/shell/jobs.py`) and the call returns its handle at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from valarmind_tui.tools.base import Preview, Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool, child_env, kill_group, spawn, wait_exit
from valarmind_tui.tools.shell.jobs import JobSpec

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600
HEAD_BYTES = 15_000
TAIL_BYTES = 15_000
DRAIN_GRACE_S = 1.0
BACKGROUND_ENV = {"PYTHONUNBUFFERED": "1"}
"""A background command's output is read while it runs: Python's not held in a buffer."""


class BashParams(ToolParams):
    command: str = Field(description="The shell command to run (bash -c), in the project root.")
    timeout: float | None = Field(
        default=None, gt=0,
        description=f"Timeout in seconds (default {DEFAULT_TIMEOUT_S}, at most {MAX_TIMEOUT_S}).",
    )
    network: bool = Field(
        default=False,
        description="This command needs the network (installs, downloads); commands run "
                    "without it otherwise.",
    )
    run_in_background: bool = Field(
        default=False,
        description="Start it in the background (a dev server, a watcher, a long test run) and "
                    "get a handle at once; read its output with command_output and end it "
                    "with command_stop. It ends with the session.",
    )


def effective_timeout(value: float | None) -> float:
    """Seconds; values over 1000 are taken as milliseconds (as some tool APIs use)."""
    if value is None:
        return DEFAULT_TIMEOUT_S
    if value > 1000:
        value = value / 1000
    return min(value, MAX_TIMEOUT_S)


class OutputBuffer:
    """Keeps the first and the last bytes of a stream, counting what falls in between."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[:-TAIL_BYTES]

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        omitted = self.total - len(self.head) - len(self.tail)
        if omitted > 0:
            return f"{head}\n… [{omitted} bytes of output omitted] …\n{tail}"
        return head + tail


async def _pump(stream: asyncio.StreamReader, buffer: OutputBuffer) -> None:
    while chunk := await stream.read(65536):
        buffer.feed(chunk)


class Bash(BuiltinTool[BashParams]):
    name = "bash"
    Params = BashParams
    risk = Risk.EXECUTE
    description = "Run a shell command in the project root."

    def __init__(self, *, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox
        """Used for every call; when None, the call's ctx.sandbox (when that is None too, the
        command runs unconfined)."""

    def sandbox_for(self, ctx: ToolContext) -> Sandbox | None:
        return self.sandbox if self.sandbox is not None else ctx.sandbox

    async def preview(self, params: BashParams, ctx: ToolContext) -> Preview:
        cwd = str(ctx.project_root.resolve())
        how = "Run (with network)" if params.network else "Run"
        if params.run_in_background:
            how += " in the background"
        return Preview(summary=f"{how}: {params.command}", command=params.command, cwd=cwd)

    def argv(self, command: str, cwd: Path, *, sandbox: Sandbox | None = None,
             env: Mapping[str, str] | None = None, network: bool = False) -> list[str]:
        shell = shutil.which("bash") or "/bin/sh"
        argv = [shell, "-c", command]
        if sandbox is None:
            return argv
        return sandbox.wrap(argv, cwd, env=env, network=network or None)

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        """Run the command; in the sandbox, under its guard, whose report (what it undid in
        the project's protected paths) ends the output the model and the person see."""
        sandbox = self.sandbox_for(ctx)
        if params.run_in_background:
            return await self._start(params, ctx, sandbox)
        if sandbox is None:
            return await self._run(params, ctx, None)
        guard = sandbox.guard(ctx.project_root)
        with guard:
            result = await self._run(params, ctx, sandbox)
        report = guard.report()
        if not report:
            return result
        return replace(result, output=f"{result.output}\n{report}", is_error=True)

    async def _start(self, params: BashParams, ctx: ToolContext,
                     sandbox: Sandbox | None) -> ToolResult:
        """Hand the command to the session's background commands; its handle at once."""
        jobs = ctx.services.jobs
        if jobs is None:
            return ToolResult.error("Background commands are not available here: run it "
                                    "without run_in_background.")
        cwd = ctx.project_root.resolve()
        extra = ctx.services.command_env
        env = {**child_env(cwd, explicit=extra() if extra is not None else None),
               **BACKGROUND_ENV}
        argv = self.argv(params.command, cwd, sandbox=sandbox, env=env, network=params.network)
        confined = sandbox is not None and sandbox.active
        network = not confined or params.network or (sandbox is not None
                                                    and sandbox.policy.network)
        job = await jobs.start(
            JobSpec(argv, params.command, cwd, env, agent_id=ctx.agent_id, network=network,
                    sandboxed=confined),
            guard=sandbox.guard(cwd) if sandbox is not None else None)
        lines = [f"Started in the background as {job.handle} (pid {job.pid}).",
                 f"Read its output with command_output(handle={job.handle!r}, since=0); "
                 f"end it with command_stop(handle={job.handle!r}). It ends with the session."]
        lines.append(reachability(confined, network))
        return ToolResult("\n".join(lines), data={"handle": job.handle, "pid": job.pid,
                                                  "network": network})

    async def _run(self, params: BashParams, ctx: ToolContext,
                   sandbox: Sandbox | None) -> ToolResult:
        cwd = ctx.project_root.resolve()
        timeout = effective_timeout(params.timeout)
        extra = ctx.services.command_env
        env = child_env(cwd, explicit=extra() if extra is not None else None)
        argv = self.argv(params.command, cwd, sandbox=sandbox, env=env, network=params.network)
        proc = await spawn(
            *argv, cwd=cwd, env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        assert proc.stdout is not None
        buffer = OutputBuffer()
        reader = asyncio.ensure_future(_pump(proc.stdout, buffer))
        exited = asyncio.ensure_future(wait_exit(proc))
        cancelled = asyncio.ensure_future(ctx.cancel_event.wait())
        try:
            done, _ = await asyncio.wait(
                {exited, cancelled}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        except asyncio.CancelledError:
            kill_group(proc.pid)
            await _settle(proc, reader)
            raise
        finally:
            cancelled.cancel()
        if exited not in done:
            kill_group(proc.pid)
            await _settle(proc, reader)
            why = (f"timed out after {timeout:g} s" if not done
                   else "was cancelled")
            return ToolResult.error(
                f"{buffer.text()}\n[the command {why}; its process group was killed]".lstrip(),
            )
        note = ""
        try:
            await asyncio.wait_for(asyncio.shield(reader), DRAIN_GRACE_S)
        except TimeoutError:
            reader.cancel()
            _close_pipes(proc)
            note = "\n[background processes still hold the output; later output not captured]"
        code = proc.returncode
        text = (buffer.text() or "(no output)") + note
        if code != 0:
            text += f"\n[exit code {code}]"
        return ToolResult(text, is_error=code != 0, data={"exit_code": code})


def reachability(confined: bool, network: bool) -> str:
    """Whether a server the background command starts can be reached by later commands."""
    if not confined:
        return "Commands run unconfined: a server it starts is reachable by later commands."
    if network:
        return ("It has the network: a server it starts is reachable by later commands that "
                "have the network too (network: true).")
    return ("It runs without network, in a network namespace of its own: a server it starts "
            "is NOT reachable by later commands. To reach one, start it again with "
            "network: true and give the commands that reach it network: true.")


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Stop listening to a pipe that processes left running in the background still hold."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def _settle(proc: asyncio.subprocess.Process, reader: asyncio.Future[None]) -> None:
    """After a kill: reap the shell and stop reading, without hanging on a stubborn pipe."""
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await asyncio.wait_for(wait_exit(proc), 5)
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(reader), DRAIN_GRACE_S)
    reader.cancel()
    _close_pipes(proc)
    with contextlib.suppress(BaseException):
        await reader
