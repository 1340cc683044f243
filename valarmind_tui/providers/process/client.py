"""The model process: litellm in a child process of its own, for a face that draws a screen.

Two costs of litellm landed on the TUI's one interpreter lock: importing it (~2.6 s, then ~0.9 s
more for the provider SDK's first request), which a prompt typed in the first seconds waited
for while keystrokes froze; and ~1 ms of Python per streamed chunk (400 chunks/s at 1,000
tokens/s), which made keystrokes and frames wait. The TUI starts this process first thing, so
the import runs on the second core while Textual paints, and the chunks are parsed there.

Protocol: JSON lines. Requests on the child's stdin (`{"i": id, "op": ...}`); on a pipe of its
own (descriptor $VALARMIND_MODEL_FD in the child, so nothing a library prints can pass for a
message) the events of providers/litellm_call.py (`d` a delta, `m` a message, `u` priced usage),
then `end`, or `fail` (a Failure, classified in the child), or `r` (an answer to a call);
`ready` once litellm is imported. The child's stdout and stderr are kept (the last line
explains an exit) and never reach the terminal. The child ends when its stdin closes, so it
cannot outlive the face. One that stops is replaced on the next request; a stream it was
serving fails with the reason (retried when the child had started well; reported at once when
it never imported litellm: a broken install).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import logging
import os
import queue
import subprocess
import sys
import threading
from collections import deque
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from valarmind_tui.core.errors import ProviderError
from valarmind_tui.providers.base import Usage
from valarmind_tui.providers.failures import Failure
from valarmind_tui.providers.io_thread import Inbox, merge_text
from valarmind_tui.providers.litellm_call import (
    CallEvent,
    DeltaEvent,
    MessageEvent,
    Piece,
    UsageEvent,
    apply,
)
from valarmind_tui.providers.normalize import TurnAccumulator
from valarmind_tui.providers.stream_watch import Deadlines

if TYPE_CHECKING:
    from valarmind_tui.providers.process.fork import ForkedWorker

Message = dict[str, Any]
_STOP = object()
_log = logging.getLogger(__name__)


class RemoteFailure(Exception):
    """A call failed in the model process; `failure` is its classification there."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def worker_argv() -> list[str]:
    """How to start the child: this interpreter, `-P` so the project folder (the working
    directory) is never on its import path."""
    return [sys.executable, "-P", "-m", "valarmind_tui.providers.process.worker"]


def _worker_env(events_fd: int) -> dict[str, str]:
    env = dict(os.environ)
    env["VALARMIND_MODEL_FD"] = str(events_fd)
    package_parent = str(Path(__file__).resolve().parents[3])  # found without the cwd
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    env.pop("PYTHONSTARTUP", None)
    return env


class Channel:
    """Requests to a model server and its events back, over two byte streams, with the threads
    that talk to them: the model process's pipes, or a model daemon's socket
    (providers/daemon/link.py)."""

    def __init__(self, events: IO[bytes], requests: IO[bytes]) -> None:
        self._events, self._requests = events, requests
        self._ids = itertools.count(1)
        self._sinks: dict[int, Callable[[Message], None]] = {}
        self._lock = threading.Lock()
        self._outbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.exited = False
        self.ready = False
        """The server imported litellm; until then, its exit is a broken install, not a blip."""

    def _start_threads(self) -> None:
        for target, name in ((self._read, "model-process-read"),
                             (self._write, "model-process-write")):
            threading.Thread(target=target, name=name, daemon=True).start()

    # -- requests -------------------------------------------------------------------------------

    async def pieces(self, kwargs: dict[str, Any], acc: TurnAccumulator,
                     deadlines: Deadlines | None = None) -> AsyncGenerator[Piece, None]:
        """Stream one `acompletion(**kwargs)` in the server, folding its events into `acc`.
        Closing this iterator early cancels the request there."""
        inbox = Inbox(asyncio.get_running_loop())

        def post(message: Message) -> None:  # on the reader thread
            inbox.post(message, urgent="d" not in message or bool(message.get("f")))

        limits = deadlines or Deadlines()
        request_id = self._open(post, {"op": "stream", "kwargs": kwargs,
                                       "deadlines": [limits.first_byte_s, limits.idle_s]})
        ended = False
        try:
            while not ended:
                batch = await inbox.take()
                out: list[Piece] = []
                error: RemoteFailure | None = None
                for message in batch:
                    event = _event(message)
                    if event is not None:
                        out.extend(apply(acc, event))
                        continue
                    ended = True
                    error = _failure(message)
                    break
                for piece in merge_text(out):
                    yield piece
                if error is not None:
                    raise error
        finally:
            self._close(request_id, cancel=not ended)

    def call(self, op: str, timeout_s: float = 120, **args: Any) -> Any:
        """Ask the server something and wait for the answer (blocking: never on an event loop)."""
        answered = threading.Event()
        answer: Message = {}

        def post(message: Message) -> None:
            answer.update(message)
            answered.set()

        request_id = self._open(post, {"op": op, **args})
        try:
            if not answered.wait(timeout_s):
                raise ProviderError(f"the model process did not answer `{op}` in {timeout_s} s")
        finally:
            self._close(request_id, cancel=False)
        if "r" not in answer:
            failure = _failure(answer)
            raise ProviderError(failure.failure.message if failure else f"`{op}` failed")
        return answer["r"]

    def import_soon(self) -> None:
        """Have the server import litellm now, where it waits for its first request (a forked
        model process started with `import_at_once=False`); no answer comes."""
        if not self.ready and not self.exited:
            self._outbox.put({"i": 0, "op": "import"})

    def _open(self, sink: Callable[[Message], None], request: Message) -> int:
        with self._lock:
            request_id = next(self._ids)
            self._sinks[request_id] = sink
            exited = self.exited
        if exited:
            sink({"gone": self._gone_reason(), "fatal": not self.ready})
        else:
            self._outbox.put({"i": request_id, **request})
        return request_id

    def _close(self, request_id: int, *, cancel: bool) -> None:
        with self._lock:
            self._sinks.pop(request_id, None)
        if cancel and not self.exited:
            self._outbox.put({"i": request_id, "op": "cancel"})

    # -- the threads ----------------------------------------------------------------------------

    def _write(self) -> None:
        """Requests go through here so a large one never blocks its caller on a full pipe."""
        out = self._requests
        try:
            while (item := self._outbox.get()) is not _STOP:
                out.write(json.dumps(item).encode() + b"\n")
                if self._outbox.empty():
                    out.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the server is gone; the reader says so to whoever waits
        finally:
            with contextlib.suppress(BrokenPipeError, OSError):
                out.close()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in self._events:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if message.get("ready"):
                    self.ready = True
                    continue
                with self._lock:
                    sink = self._sinks.get(message.get("i"))
                if sink is not None:
                    sink(message)
        self._ended()
        with self._lock:
            self.exited = True
            sinks = list(self._sinks.values())
        gone = {"gone": self._gone_reason(), "fatal": not self.ready}
        for sink in sinks:
            sink(gone)

    def _ended(self) -> None:
        """The events stream ended (before whoever waits is told)."""

    def _gone_reason(self) -> str:
        return "the model process stopped"


LAST_WORDS_WAIT_S = 1.0  # a grandchild holding stderr open must not hold up the failure


class ModelProcess(Channel):
    """One child process serving litellm calls, and the threads that talk to it."""

    def __init__(self, argv: list[str] | None = None, *, fork: bool = False,
                 import_at_once: bool = True) -> None:
        """`fork`: the child is this process forked (providers/process/fork.py), not `argv`;
        `import_at_once`: a forked child imports litellm now, not at the first request."""
        events_r, events_w = os.pipe()
        said_r, said_w = os.pipe()
        self._proc: subprocess.Popen[bytes] | ForkedWorker
        try:
            if fork:
                from valarmind_tui.providers.process.fork import ForkedWorker

                self._proc = ForkedWorker(events_w, said_w, import_at_once)
            else:
                self._proc = subprocess.Popen(
                    argv or worker_argv(), stdin=subprocess.PIPE, stdout=said_w,
                    stderr=said_w, env=_worker_env(events_w), close_fds=True,
                    pass_fds=(events_w,))
        finally:
            os.close(events_w)
            os.close(said_w)
        assert self._proc.stdin is not None
        super().__init__(os.fdopen(events_r, "rb"), self._proc.stdin)
        self._said = os.fdopen(said_r, "rb")
        self._stderr: deque[str] = deque(maxlen=20)
        self._start_threads()
        self._stderr_drained = threading.Thread(
            target=self._drain_stderr, name="model-process-stderr", daemon=True)
        self._stderr_drained.start()

    @property
    def exit_code(self) -> int | None:
        """The child's exit code once it has ended (negative: the signal that ended it)."""
        return self._proc.returncode

    @property
    def pid(self) -> int:
        return self._proc.pid

    def stop(self) -> None:
        """Close the child's stdin (it exits), and make sure it is gone: a face quitting while
        the child still imports litellm does not wait for that import."""
        self._outbox.put(_STOP)
        for wait_s, end in ((0.2, self._proc.terminate), (1.0, self._proc.kill)):
            try:
                self._proc.wait(timeout=wait_s)
                return
            except subprocess.TimeoutExpired:
                end()

    def _ended(self) -> None:
        self._proc.wait()
        # Its last words may still be in the pipe: the reason given must include them.
        self._stderr_drained.join(timeout=LAST_WORDS_WAIT_S)

    def _drain_stderr(self) -> None:
        for line in self._said:
            text = line.decode(errors="replace").strip()
            if text:
                self._stderr.append(text)

    def _gone_reason(self) -> str:
        code = self._proc.poll()
        last = self._stderr[-1] if self._stderr else ""
        said = f": {last[:300]}" if last else ""
        return f"the model process stopped (exit code {code}){said}"


def _event(message: Message) -> CallEvent | None:
    if "d" in message:
        return DeltaEvent(message["d"], message.get("f"))
    if "u" in message:
        prompt, completion, cost, *details = message["u"]
        return UsageEvent(Usage(prompt, completion, cost, *details))
    if "m" in message:
        return MessageEvent(message["m"], message.get("f"))
    return None


def _failure(message: Message) -> RemoteFailure | None:
    """The error an `end`, `fail` or `gone` message means (None for `end`)."""
    if "fail" in message:
        text, status, kind, retry_after = message["fail"]
        return RemoteFailure(Failure(text, status, kind, retry_after))
    if "gone" in message:  # retried once it had started well; a broken install is not
        return RemoteFailure(Failure(message["gone"], None,
                                     "fatal" if message.get("fatal") else "transient"))
    return None


_process: ModelProcess | None = None
_started = False
_fork_next = False
"""The next model process is this one forked: set by `start`, before the face's threads."""
_import_at_once = True
"""The forked model process imports litellm at once, not at its first request (`start`)."""
_guard = threading.Lock()
_daemon: Callable[[str | None], Channel | None] | None = None
"""The model daemon's link for a model it may serve (providers/daemon/link.py), when a face
chose it; None for a model it may not (then the model process, or this process)."""


def use_daemon(link: Callable[[str | None], Channel | None] | None) -> None:
    """From here on, models the daemon may serve go to `link(model)` (None: no daemon)."""
    global _daemon
    _daemon = link


def start(*, import_at_once: bool = True) -> Channel | None:
    """Start the model process now; from here on every LiteLLMProvider of this process uses
    it. A face calls this first thing, before its own imports and threads: the first model
    process is this one forked (sharing its pages) while that is safe. None where no child
    can be started (not POSIX, or the spawn failed): litellm then runs in this process.
    `import_at_once=False`: a forked one imports litellm at its first request (or a few seconds
    on: worker.IMPORT_AFTER_S), not while the face starts beside it."""
    global _started, _fork_next, _import_at_once
    _started = os.name == "posix"
    _fork_next, _import_at_once = True, import_at_once
    return running()


def running(model: str | None = None) -> Channel | None:
    """Where `model`'s calls run: the model daemon when a headless face chose it and it may
    serve `model`; else the model process, replaced if it stopped; None when no face started
    one, or when a new one cannot be started (then litellm runs in this process)."""
    global _process, _started, _fork_next
    if _daemon is not None and (link := _daemon(model)) is not None:
        return link
    if not _started:
        return None
    with _guard:
        if _process is None or _process.exited:
            fork, _fork_next = _fork_next and _can_fork(), False
            try:
                _process = ModelProcess(fork=fork, import_at_once=_import_at_once)
            except OSError as exc:
                _log.warning("model process not started (%s); litellm runs in this process",
                             exc)
                _process, _started = None, False
        return _process


def _can_fork() -> bool:
    from valarmind_tui.providers.process.fork import can_fork

    return can_fork()


def stop() -> None:
    """End the model process; litellm runs in this process again."""
    global _process, _started
    with _guard:
        process, _process, _started = _process, None, False
    if process is not None:
        process.stop()


atexit.register(stop)
