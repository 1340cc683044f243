"""A headless run's side of the model daemon: connect, or start one detached and connect.

`enable` (from the CLI, for `-p` and `run`) connects at once when a daemon answers, else starts
one without waiting for it, so it imports litellm while this process builds its session; the
first request then waits for its socket (a few hundred ms at most; START_WAIT_S before giving
up). Whatever cannot be trusted is not used: a socket that is a link, not a socket, another
user's or open to others, a peer of another user id, a daemon of another build. Then a new
daemon is started, which renames its socket over the old path (never following a link). When
no daemon can be had (an unsafe folder, a spawn that fails or never answers), this process
calls litellm itself, as it did before the daemon.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from valarmind_tui.providers.daemon.place import (
    UnsafePlace,
    private_folder,
    socket_path,
    socket_problem,
)
from valarmind_tui.providers.daemon.protocol import build, daemon_env, may_serve, peer_uid
from valarmind_tui.providers.process import client as model_process
from valarmind_tui.providers.process.client import _STOP, Channel

HELLO_TIMEOUT_S = 5.0
START_WAIT_S = 5.0
"""How long a run waits for a daemon it started to answer before calling litellm itself."""
_log = logging.getLogger(__name__)


class DaemonLink(Channel):
    """One connection to the daemon, greeted; requests and events as with the model process."""

    def __init__(self, sock: socket.socket, events: IO[bytes], hello: dict[str, Any]) -> None:
        super().__init__(events, sock.makefile("wb"))
        self._sock = sock
        self.pid = int(hello.get("pid") or 0)
        self.ready = bool(hello.get("ready"))
        self._start_threads()

    def close(self) -> None:
        self._outbox.put(_STOP)
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)

    def _gone_reason(self) -> str:
        return "the model daemon stopped"


def connect(path: Path) -> DaemonLink | None:
    """A greeted link to the daemon at `path`; None when nothing there may be used."""
    if socket_problem(path) is not None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(HELLO_TIMEOUT_S)
        sock.connect(str(path))
        if peer_uid(sock) != os.getuid():
            raise ConnectionError("the daemon runs as another user")
        sock.sendall(json.dumps({"hello": build()}).encode() + b"\n")
        events = sock.makefile("rb")
        hello = json.loads(events.readline() or b"null")
        if not isinstance(hello, dict) or hello.get("hello") != build():
            raise ConnectionError(f"a daemon of another build answered ({hello!r:.80})")
        sock.settimeout(None)
    except (OSError, ValueError) as exc:
        _log.info("model daemon at %s not used: %s", path, exc)
        sock.close()
        return None
    return DaemonLink(sock, events, hello)


def spawn(path: Path, idle_s: float) -> subprocess.Popen[bytes]:
    """Start a daemon for `path`, detached (its own session, `/`, a minimal environment).
    Raises UnsafePlace or OSError."""
    folder = private_folder(path)
    log = os.open(folder / "daemon.log",
                  os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "valarmind_tui.providers.daemon.server",
             "--socket", str(path), "--idle-s", str(idle_s)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd="/", env=daemon_env(),
            start_new_session=True, close_fds=True)
    finally:
        os.close(log)
    threading.Thread(target=proc.wait, name="model-daemon-reaper", daemon=True).start()
    return proc


class ModelDaemon:
    """This process's use of the daemon: its link, made once and remade if it drops."""

    def __init__(self, path: Path, idle_s: float) -> None:
        self.path, self.idle_s = path, idle_s
        self._lock = threading.Lock()
        self._link: DaemonLink | None = None
        self._started: subprocess.Popen[bytes] | None = None
        self._given_up = False

    def start(self) -> None:
        """Connect, or start a daemon without waiting for it."""
        with self._lock:
            self._link = connect(self.path)
            if self._link is None:
                self._spawn()
                self._given_up = self._started is None

    def link(self, model: str | None) -> DaemonLink | None:
        """The link for `model`'s calls; None when the daemon may not serve it or cannot be
        had (then this process calls litellm)."""
        if not may_serve(model):
            return None
        with self._lock:
            if self._link is not None and not self._link.exited:
                return self._link
            if self._given_up:
                return None
            self._link = connect(self.path)
            if self._link is None:
                self._link = self._wait_for_one()
            self._given_up = self._link is None
            return self._link

    def _spawn(self) -> None:
        try:
            self._started = spawn(self.path, self.idle_s)
        except (UnsafePlace, OSError) as exc:
            _log.warning("model daemon not started (%s); litellm runs in this process", exc)
            self._started = None

    def _wait_for_one(self) -> DaemonLink | None:
        if self._started is None or self._started.poll() is not None:
            self._spawn()
        if self._started is None:
            return None
        deadline = time.monotonic() + START_WAIT_S
        while time.monotonic() < deadline:
            time.sleep(0.01)
            link = connect(self.path)
            if link is not None:
                return link
            if self._started.poll() is not None:
                break
        _log.warning("model daemon did not answer; litellm runs in this process")
        return None


def enable(idle_s: float, model: str | None) -> ModelDaemon | None:
    """Send the calls of models the daemon may serve to it, from now on in this process; start
    it at once when `model` (the run's first) is one of them. None on a system without Unix
    sockets, or where the socket's place is unsafe."""
    if os.name != "posix":
        return None
    daemon = ModelDaemon(socket_path(), idle_s)
    model_process.use_daemon(daemon.link)
    if may_serve(model):
        daemon.start()
    return daemon
