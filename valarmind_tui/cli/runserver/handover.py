"""A client's hand-over to the run server (client.py decided the command may be a one-shot).

`handed_over(argv)` gives the exit code of the run the user's run server forked for this
command, or None: then this process runs it itself, as it always did. None whenever anything
is off: the switches off, a `PYTHON*` variable a fork cannot honour, a socket folder open to
others or not the user's (nothing is started there), the child declined (the run may need a
terminal) or ended before it began the run. And None, with a new server started (detached,
for the next run; its socket renamed over the path, never following a link), when there is
no server yet, or the socket is a link, another user's or open to others, its peer runs as
another user, or it is a server of another build or whose code changed on disk.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from valarmind_tui.cli.runserver.protocol import (
    build,
    interpreter_env_set,
    peer_uid,
    recv_frame,
    send_frame,
    socket_path,
    turned_off,
)
from valarmind_tui.providers.daemon.place import socket_problem

HELLO_TIMEOUT_S = 5.0
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
EXIT_LOST = 1


def handed_over(argv: Sequence[str]) -> int | None:
    """The served run's exit code; None: run in this process."""
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(socket, "send_fds"):
        return None  # no way to check the peer (not Linux) or to pass descriptors
    try:
        if turned_off(argv, os.environ) or interpreter_env_set(os.environ):
            return None
        path = socket_path()
        if not _private(path.parent):
            return None  # an open or foreign folder: nothing there is used, nothing started
        problem = socket_problem(path)
        sock = _greeted(path) if problem is None else None
    except Exception:  # noqa: BLE001 - nothing was handed over: the run goes on here
        return None
    if sock is None:
        if problem is not None:
            _start_server(path)
        return None
    with sock:
        return _served(sock, argv)


def _private(folder: Path) -> bool:
    """The socket's folder exists (else a first server makes it), is a real folder, the
    user's own, closed to others."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def _greeted(path: Path) -> socket.socket | None:
    """A connection to a server of this build, run by this user; None (a new server started
    in the place of one of another build or stale code) otherwise."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(HELLO_TIMEOUT_S)
        sock.connect(str(path))
        if peer_uid(sock) != os.getuid():  # nothing sent to it
            raise ConnectionRefusedError("the run server runs as another user")
        send_frame(sock, {"hello": build()})
        hello, _ = recv_frame(sock)
        if hello is None:
            raise ConnectionError("the run server closed the connection")
        if hello.get("hello") != build() or hello.get("stale"):
            sock.close()
            _start_server(path)
            return None
        sock.settimeout(None)
    except ConnectionRefusedError:  # a stale socket: a server that was killed
        sock.close()
        _start_server(path)
        return None
    except (OSError, ValueError):
        sock.close()
        return None
    return sock


def _served(sock: socket.socket, argv: Sequence[str]) -> int | None:
    try:
        request = {"argv": [sys.argv[0], *argv], "cwd": os.getcwd(),
                   "env": dict(os.environ), "umask": _umask()}
        send_frame(sock, request, fds=(0, 1, 2))
    except (OSError, ValueError):
        return None
    received: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        with contextlib.suppress(OSError):
            send_frame(sock, {"signal": signum})

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    started = False
    try:
        while True:
            try:
                message, _ = recv_frame(sock)
            except (OSError, ValueError):
                message = None
            if message is None:
                break
            if "exit" in message:
                return int(message["exit"])
            if "decline" in message:
                return None
            started = started or bool(message.get("started"))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not started:
        return None  # the child ended before the run began: nothing was done, run it here
    if received:  # the run ended by the signal forwarded to it: end the same way
        signal.signal(received[-1], signal.SIG_DFL)
        os.kill(os.getpid(), received[-1])
    print("valarmind: the run ended without an exit status (killed?)", file=sys.stderr)
    return EXIT_LOST


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _start_server(path: Path) -> None:
    """Start a run server for the next run, detached; this run does not wait for it."""
    from valarmind_tui.cli.runserver.spawn import spawn

    spawn(path)
