"""Helpers for tests of the model daemon (providers/daemon/): a private runtime folder, the
environment that turns the daemon on, the daemon's pid as it says in its greeting, and the
daemons a test started, ended at its end."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from valarmind_tui.providers.daemon.protocol import build


def runtime_folder(base: Path) -> Path:
    """A private $XDG_RUNTIME_DIR (0700, ours), as systemd makes it."""
    folder = base / "xdg-run"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def daemon_on(runtime: Path, idle_s: float = 60) -> dict[str, str]:
    """What a run's environment needs for the daemon to be used, with `runtime` as its folder."""
    return {"VALARMIND_MODEL_DAEMON": "1", "XDG_RUNTIME_DIR": str(runtime),
            "VALARMIND_MODEL_DAEMON_IDLE_S": str(idle_s)}


def socket_of(runtime: Path) -> Path:
    return runtime / "valarmind" / "model.sock"


def greeting(path: Path, hello: object = None, timeout: float = 5) -> dict[str, object] | None:
    """The daemon's answer to a hello (ours by default); None when nothing answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
        sock.sendall(json.dumps({"hello": build() if hello is None else hello}).encode() + b"\n")
        line = sock.makefile("rb").readline()
        return json.loads(line) if line else None
    except OSError:
        return None
    finally:
        sock.close()


def daemon_pid(runtime: Path) -> int | None:
    return _daemon_pid_in(socket_of(runtime).parent)


def _daemon_pid_in(folder: Path) -> int | None:
    answer = greeting(folder / "model.sock")
    return int(answer["pid"]) if answer else None  # type: ignore[call-overload]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # a zombie waiting for its reaper is gone too
        if Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z"):
            return False
    return True


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


@contextlib.contextmanager
def daemons_ended(runtime: Path) -> Iterator[None]:
    """At the end, end the daemon and the run server answering in `runtime` (a test's daemons
    never outlive it)."""
    with daemons_ended_in(runtime / "valarmind"):
        yield


@contextlib.contextmanager
def daemons_ended_in(folder: Path) -> Iterator[None]:
    """`daemons_ended` for the socket folder itself (the data dir's `run/` when there is no
    runtime folder)."""
    try:
        yield
    finally:
        for pid in (_daemon_pid_in(folder), _run_server_pid_in(folder)):
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
                wait_gone(pid, 5)


def end_daemons_started_in(folder: Path) -> list[int]:
    """End every run server and model daemon started with its socket in `folder`, answering
    yet or not (found by their command line: one still importing has no socket to greet);
    their pids."""
    sockets = {str(folder / "run.sock").encode(), str(folder / "model.sock").encode()}
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a == b"--socket" and b in sockets for a, b in itertools.pairwise(argv)):
            found.append(int(entry.name))
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for pid in found:
        wait_gone(pid, 5)
    return found


def run_server_pid(runtime: Path) -> int | None:
    """The run server's pid (cli/runserver/), which a run with the daemons on starts too."""
    return _run_server_pid_in(runtime / "valarmind")


def _run_server_pid_in(folder: Path) -> int | None:
    from valarmind_tui.cli.runserver.protocol import build as run_build
    from valarmind_tui.cli.runserver.protocol import recv_frame, send_frame

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(str(folder / "run.sock"))
        send_frame(sock, {"hello": run_build()})
        answer = recv_frame(sock)[0]
        return int(answer["server"]) if answer else None
    except (OSError, ValueError, KeyError):
        return None
    finally:
        sock.close()


class Impostor:
    """A listening Unix socket that records what any client sends it; it answers a hello with
    `answer` (nothing when None)."""

    def __init__(self, path: Path, answer: dict[str, object] | None = None) -> None:
        self.path = path
        self.heard: list[bytes] = []
        self.connections = 0
        self._answer = answer
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))

    def listen(self) -> Impostor:
        self.server.listen()
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _talk(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            reader = conn.makefile("rb")
            with contextlib.suppress(OSError):
                while line := reader.readline():
                    self.heard.append(line)
                    if self._answer is not None:
                        conn.sendall(json.dumps(self._answer).encode() + b"\n")

    def close(self) -> None:
        self.server.close()
