"""Helpers for tests of the run server (cli/runserver/): a client run that says whether it was
served (it imported no session module) or ran in-process, the server's pid from a child's
greeting, its children, and the servers a test started, ended at its end."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.daemon_help import daemon_on, daemons_ended, greeting, wait_gone
from valarmind_tui.cli.runserver.protocol import build, recv_frame, send_frame

CLIENT = (
    "import sys\n"
    "from pathlib import Path\n"
    "import valarmind_tui.cli.main as cli\n"
    "marker = Path(sys.argv.pop(1))\n"
    "marker.write_text('served')\n"
    "in_process = cli.main\n"
    "def main(*args):\n"
    "    marker.write_text('in-process')\n"
    "    return in_process(*args)\n"
    "cli.main = main\n"
    "cli.entry()\n")
"""`valarmind` as its console script runs it (`entry`), plus a mark of how the run went:
"in-process" once this process ran `main`, else "served"."""


def server_on(runtime: Path) -> dict[str, str]:
    """A run's environment with the daemons on (the tests' conftest turns them off)."""
    return daemon_on(runtime)


def run_socket(runtime: Path) -> Path:
    return runtime / "valarmind" / "run.sock"


def client(*args: str, cwd: Path, env: dict[str, str], marker: Path, timeout: float = 60,
           prefix: tuple[str, ...] = (), **popen: Any) -> subprocess.CompletedProcess[str]:
    """`valarmind ARGS` as a user runs it (after `prefix`, a command that execs it);
    `marker` then reads "served" or "in-process"."""
    capture = {} if "stdout" in popen else {"capture_output": True}
    return subprocess.run([*prefix, sys.executable, "-c", CLIENT, str(marker), *args], cwd=cwd,
                          env={**os.environ, **env}, text=True, timeout=timeout,
                          **capture, **popen)


def start_client(*args: str, cwd: Path, env: dict[str, str], marker: Path,
                 prefix: tuple[str, ...] = (), **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([*prefix, sys.executable, "-c", CLIENT, str(marker), *args],
                            cwd=cwd,
                            env={**os.environ, **env}, text=True, **popen)


def hello(path: Path, hello: object = None) -> dict[str, Any] | None:
    """A child's greeting (ours by default); None when nothing answers. Nothing else is sent,
    so the child leaves."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(str(path))
        send_frame(sock, {"hello": build() if hello is None else hello})
        return recv_frame(sock)[0]
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def server_pid(runtime: Path) -> int | None:
    answer = hello(run_socket(runtime))
    return int(answer["server"]) if answer else None


def children_of(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(word) for word in text.split()]


def served_child(server: int, client_pid: int, timeout: float = 10) -> int:
    """The pid of the server's child running `client_pid`'s run: the one writing where the
    client's stdout points (waited for; a greeting's short-lived child is not it)."""
    import time

    wanted = os.readlink(f"/proc/{client_pid}/fd/1")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in children_of(server):
            with contextlib.suppress(OSError):
                if _running(pid) and os.readlink(f"/proc/{pid}/fd/1") == wanted:
                    return pid
        time.sleep(0.05)
    raise AssertionError("the run server forked no run for this client")


def _running(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    return False


def end_servers_at(path: Path) -> None:
    """End the run server at `path` and the model daemon beside it."""
    for pid in (_answer_pid(hello(path), "server"),
                _answer_pid(greeting(path.with_name("model.sock")), "pid")):
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            wait_gone(pid, 5)


def _answer_pid(answer: dict[str, Any] | None, key: str) -> int | None:
    return int(answer[key]) if answer and key in answer else None


@contextlib.contextmanager
def servers_ended(runtime: Path) -> Iterator[None]:
    """At the end, end the run server and the model daemon answering in `runtime`."""
    with daemons_ended(runtime):
        yield
