"""The model process forked from the face, instead of a fresh interpreter.

A fresh interpreter builds its own copy of everything both processes hold: the interpreter's
start-up heap, the standard library's modules and what the face imported before it started
the child. Forked, the child shares those pages with the face (copy-on-write: counted once
in the tree's PSS) and imports only LiteLLM and what it needs on top. The collector is frozen
first (`gc.freeze`), so neither process's collections write to the shared objects' headers and
copy their pages.

Only while the face has a single thread: a fork copies no other thread, and a lock another
thread held stays locked in the child. `client.start()` forks at once, before the face starts
any thread; a model process replaced later is started afresh (`worker_argv`).

The child keeps nothing of the face it was not given: every descriptor but its three pipes is
closed (a fork inherits them all, close-on-exec or not: the terminal, the session store), the
face's import path loses the folder `-P` would have left out (the project, under
`python -m`), signal handlers are the defaults, and it ends with `os._exit`, never through the
face's atexit handlers. Its environment is the face's, as the fresh one's was.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import random
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import IO, NoReturn

PROCESS_NAME = b"valarmind-model"
"""What `ps` and /proc/PID/comm show for the forked child (its command line is the face's)."""

IMPORTED_BY_BOTH = (
    "pydantic.main", "pydantic.fields", "pydantic.type_adapter", "pydantic.json_schema",
    "pydantic.functional_validators", "pydantic.types", "yaml", "email.message",
    "importlib.metadata", "zipfile", "csv", "uuid", "mimetypes",
    "platform", "shlex", "zoneinfo", "sysconfig", "concurrent.futures.thread", "unicodedata",
)
"""Modules both processes import once started (the face for its settings, themes and session;
LiteLLM's import in the child), imported before the fork so that one copy of them is shared:
imported after it, each process built its own. Idle PSS of the tree 184.1 -> 182.7 MB (three
alternating pairs); ~35 ms more before the fork, which the face's session no longer spends."""


def can_fork() -> bool:
    """True where a fork is safe now: Linux (macOS's system libraries are not fork-safe
    without an exec), this process runs one thread and no event loop (the child would inherit
    it as running, and could not run its own)."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    asyncio = sys.modules.get("asyncio")
    return asyncio is None or asyncio._get_running_loop() is None


class ForkedWorker:
    """The forked child, as much of `subprocess.Popen` as ModelProcess uses."""

    def __init__(self, events_w: int, said_w: int, import_at_once: bool = True) -> None:
        """`import_at_once`: litellm is imported now, not at the first request (worker.main)."""
        _import_shared()
        requests_r, requests_w = os.pipe()
        gc.freeze()
        pid = os.fork()
        if pid == 0:
            _become_worker(requests_r, events_w, said_w, import_at_once)
        os.close(requests_r)
        self.pid = pid
        self.stdin: IO[bytes] = os.fdopen(requests_w, "wb")
        self.returncode: int | None = None
        self._reaping = threading.Lock()

    def poll(self) -> int | None:
        with self._reaping:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:
                    pid, status = self.pid, 0  # reaped by someone else: gone
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                import subprocess

                raise subprocess.TimeoutExpired("model process", timeout or 0)
            time.sleep(0.01)
        return code

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, number: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, number)


def _import_shared() -> None:
    for name in IMPORTED_BY_BOTH:
        importlib.import_module(name)


def _become_worker(requests_r: int, events_w: int, said_w: int,
                   import_at_once: bool) -> NoReturn:
    code = 1
    try:
        os.dup2(requests_r, 0)
        os.dup2(said_w, 1)
        os.dup2(said_w, 2)
        _close_all_but(0, 1, 2, events_w)
        # the face's may be anything (a test runner's capture): the worker reads sys.stdin
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own, never closed
        sys.stdout = sys.stderr = open(1, "w", closefd=False)  # noqa: SIM115 - as above
        os.environ["VALARMIND_MODEL_FD"] = str(events_w)
        if not sys.flags.safe_path and sys.path:
            del sys.path[0]  # what `python -P` leaves out: the script's folder, or the cwd
        package_parent = str(Path(__file__).resolve().parents[3])  # ValarMind's own modules,
        if package_parent not in sys.path:  # imported later, found as a fresh child finds them
            sys.path.append(package_parent)
        for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGWINCH, signal.SIGTSTP,
                       signal.SIGCONT, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        random.seed()
        _name_process()
        from valarmind_tui.providers.process.worker import main

        code = main(import_at_once)
    except BaseException:  # noqa: BLE001 - said on the pipe the face reads, then the exit
        with contextlib.suppress(Exception):
            os.write(2, traceback.format_exc().encode(errors="replace"))
    finally:
        os._exit(code)


def _close_all_but(*keep: int) -> None:
    if os.path.isdir("/proc/self/fd"):
        for fd in [int(name) for name in os.listdir("/proc/self/fd")]:
            if fd not in keep:
                with contextlib.suppress(OSError):
                    os.close(fd)
        return
    kept = sorted(keep)  # elsewhere: every number between the kept ones
    for low, high in zip([0, *[fd + 1 for fd in kept]], [*kept, os.sysconf("SC_OPEN_MAX")],
                         strict=True):
        os.closerange(low, high)


def _name_process() -> None:
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(15, PROCESS_NAME, 0, 0, 0)  # PR_SET_NAME
