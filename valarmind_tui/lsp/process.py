"""A language server's process: started in the sandbox with the project read-only and no
network, its stderr kept (the last lines, for a crash report), ended with its whole group.

Where the sandbox cannot run although the person wants it, no server starts: a server reads
every file of the project and some run project code (rust-analyzer's build scripts, gopls's
`go list`), so none runs unconfined unless the person turned the sandbox off.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from dataclasses import replace
from pathlib import Path

from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.sandbox.wrap import Sandbox

STDERR_LINES = 20
STDERR_LINE_CHARS = 300
STREAM_LIMIT = 1024 * 1024
"""asyncio's line limit for the header lines and stderr (a body is read by its length)."""


class CannotStart(Exception):
    """Why a server may not or could not start, in words for the person."""


def server_argv(argv: tuple[str, ...], root: Path, sandbox: Sandbox | None) -> list[str]:
    """`argv` wrapped in the sandbox: the project read-only, never the network (whatever
    commands may reach); unchanged when the person turned the sandbox off."""
    if sandbox is None or not sandbox.active:
        if sandbox is not None and sandbox.unavailable:
            raise CannotStart(f"the sandbox cannot run here ({sandbox.reason}), and a language "
                              "server is never started unconfined unless you set "
                              'sandbox = "off"')
        return list(argv)
    offline = Sandbox(sandbox.bwrap, replace(sandbox.policy, network=False))
    return offline.wrap(argv, root, env=child_env(root), network=False, root=root,
                        writable=False)


class ServerProcess:
    """One running server process and its stderr's last lines."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._drain = asyncio.create_task(self._read_stderr(), name="lsp-stderr")

    @classmethod
    async def start(cls, argv: list[str], root: Path) -> ServerProcess:
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=root, env=child_env(root),
                start_new_session=True, limit=STREAM_LIMIT)
        except OSError as exc:
            raise CannotStart(f"{argv[0]} could not be started: {exc.strerror or exc}") from None
        return cls(proc)

    @property
    def reader(self) -> asyncio.StreamReader:
        assert self.proc.stdout is not None
        return self.proc.stdout

    @property
    def writer(self) -> asyncio.StreamWriter:
        assert self.proc.stdin is not None
        return self.proc.stdin

    @property
    def exit_code(self) -> int | None:
        return self.proc.returncode

    def last_words(self) -> str:
        """Its stderr's last lines, for a report ("" when it said nothing)."""
        return " | ".join(self.stderr)

    async def kill(self) -> None:
        """End the process group (the sandbox and everything in it)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.writer.close()  # the transport closes once its pipes are closed too
        with contextlib.suppress(asyncio.TimeoutError, ProcessLookupError):
            await asyncio.wait_for(self.proc.wait(), 5)
        # read both pipes to their end: the transport closes only then, and one left open
        # when the loop closes complains at garbage collection
        with contextlib.suppress(asyncio.TimeoutError, ValueError, OSError):
            await asyncio.wait_for(asyncio.gather(self._drain, self.reader.read()), 2)
        self._drain.cancel()
        with contextlib.suppress(BaseException):
            await self._drain
        await asyncio.sleep(0)

    async def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        with contextlib.suppress(ValueError, OSError, asyncio.LimitOverrunError):
            while line := await stream.readline():
                text = line.decode("utf-8", errors="replace").strip()
                if text:
                    self.stderr.append(text[:STDERR_LINE_CHARS])
