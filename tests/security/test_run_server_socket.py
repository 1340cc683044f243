"""The run server's socket and children (cli/runserver/): each test plants what another user, a
stale run or a hostile command could leave where `valarmind -p` looks for its run server, or
checks what a forked run is handed, and that the run neither talks to what it must not trust
nor fails, that the server holds no key, and that nothing of one run reaches the next.

Runs are real processes against the fake model server; the key is the sentinel.
"""

from __future__ import annotations

import os
import pty
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon_help import runtime_folder, wait_gone
from tests.fakes.model_server import ScriptedTurn
from tests.run_server_help import (
    client,
    end_servers_at,
    run_socket,
    served_child,
    server_on,
    server_pid,
    servers_ended,
    start_client,
)
from tests.security.conftest import SENTINEL, home_outside_tmp
from tests.test_headless import configure_key, model_flags
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.shell.bash import Bash

OTHER_UID = 65534  # nobody
PACKAGE = Path(__file__).resolve().parents[2] / "valarmind_tui"


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    folder = runtime_folder(tmp_path)
    (folder / "valarmind").mkdir(mode=0o700)
    with servers_ended(folder):
        yield folder


@pytest.fixture(scope="module")
def warm_runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The runtime folder of the module's warm run server, for the tests of what a served run
    is handed or the server holds (one server forks each of them, as it does a user's runs)."""
    folder = runtime_folder(tmp_path_factory.mktemp("warm"))
    (folder / "valarmind").mkdir(mode=0o700)
    with servers_ended(folder):
        yield folder


@pytest.fixture
def warm(git_repo: Path, fake_model: Any, warm_runtime: Path, tmp_path: Path) -> int:
    """The pid of a run server of ours answering in `warm_runtime`, started by a first run
    when none answers yet; the user's key is configured as `ask` does."""
    if (pid := server_pid(warm_runtime)) is not None:
        configure_key(git_repo, "VALARMIND_TEST_KEY")
        return pid
    assert ask(git_repo, fake_model, warm_runtime, tmp_path / "first").returncode == 0
    return wait_for_server(warm_runtime)


def ask(repo: Path, fake_model: Any, runtime: Path, marker: Path, **extra_env: str) -> Any:
    configure_key(repo, "VALARMIND_TEST_KEY")
    fake_model.script(ScriptedTurn(text="Hello."))
    return client("-p", "say hi", *model_flags(fake_model), cwd=repo, marker=marker,
                  env={**server_on(runtime), **extra_env})


def wait_for_server(runtime: Path, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while (pid := server_pid(runtime)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid is not None, "no run server of ours answers"
    return pid


def answered_in_process_and_replaced(out: Any, marker: Path, runtime: Path) -> None:
    """The run answered itself, and a run server of ours (0600, not a link) took the place."""
    assert out.returncode == 0 and out.stdout == "Hello.\n", out.stderr
    assert marker.read_text() == "in-process"
    wait_for_server(runtime)
    info = os.lstat(run_socket(runtime))
    assert info.st_uid == os.getuid() and info.st_mode & 0o777 == 0o600


class FrameImpostor:
    """A listening socket that records every byte and descriptor a client sends it; it
    answers the first frame with `answer` (nothing when None)."""

    def __init__(self, path: Path, answer: bytes | None = None) -> None:
        self.path, self.answer = path, answer
        self.heard = b""
        self.fds = 0
        self.connections = 0
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(3)
                try:
                    while True:
                        data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 8)
                        self.fds += len(fds)
                        for fd in fds:
                            os.close(fd)
                        if not data:
                            break
                        self.heard += data
                        if self.answer is not None:
                            conn.sendall(self.answer)
                            self.answer = None
                except OSError:
                    pass

    def close(self) -> None:
        self.server.close()


def frame(message: bytes) -> bytes:
    return struct.pack("!I", len(message)) + message


def needs_root() -> None:
    if os.getuid() != 0:
        pytest.skip("planting a socket of another user needs root")


# -- what is at the socket's place -------------------------------------------------------------


def test_another_users_socket_is_not_used(git_repo: Path, fake_model: Any, runtime: Path,
                                          tmp_path: Path) -> None:
    needs_root()
    impostor = FrameImpostor(run_socket(runtime))
    os.chown(impostor.path, OTHER_UID, OTHER_UID)
    os.chmod(impostor.path, 0o600)
    try:
        out = ask(git_repo, fake_model, runtime, tmp_path / "m")
    finally:
        impostor.close()
    assert impostor.connections == 0 and impostor.heard == b""
    answered_in_process_and_replaced(out, tmp_path / "m", runtime)


def test_a_world_writable_socket_is_not_used(git_repo: Path, fake_model: Any, runtime: Path,
                                             tmp_path: Path) -> None:
    impostor = FrameImpostor(run_socket(runtime))
    os.chmod(impostor.path, 0o777)
    try:
        out = ask(git_repo, fake_model, runtime, tmp_path / "m")
    finally:
        impostor.close()
    assert impostor.connections == 0 and impostor.heard == b""
    answered_in_process_and_replaced(out, tmp_path / "m", runtime)


def test_a_listener_of_another_user_behind_our_file_hears_nothing(
        git_repo: Path, fake_model: Any, runtime: Path, tmp_path: Path) -> None:
    """The file is ours and 0600, the listener runs as another user: SO_PEERCRED gives it
    away before a byte (or a descriptor) is sent."""
    needs_root()
    path = run_socket(runtime)
    listener = subprocess.Popen([sys.executable, "-c", (
        "import os, socket, sys\n"
        "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600)\n"
        f"os.setresgid({OTHER_UID}, {OTHER_UID}, {OTHER_UID})\n"
        f"os.setresuid({OTHER_UID}, {OTHER_UID}, {OTHER_UID})\n"
        "s.listen(); print('listening', flush=True)\n"
        "while True:\n"
        "    c, _ = s.accept(); c.settimeout(3)\n"
        "    try: data, fds, _f, _a = socket.recv_fds(c, 4096, 8)\n"
        "    except OSError: data, fds = b'', []\n"
        "    print('HEARD', data, len(fds), flush=True)\n"), str(path)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert listener.stdout is not None and listener.stdout.readline() == "listening\n"
        out = ask(git_repo, fake_model, runtime, tmp_path / "m")
    finally:
        listener.kill()
        heard = listener.communicate()[0]
    assert "HEARD b'\\x" not in heard and "HEARD b'{" not in heard and SENTINEL not in heard
    answered_in_process_and_replaced(out, tmp_path / "m", runtime)


def test_a_socket_path_that_is_a_link_is_not_followed(
        git_repo: Path, fake_model: Any, runtime: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.sock"
    impostor = FrameImpostor(elsewhere)
    os.chmod(elsewhere, 0o600)
    run_socket(runtime).symlink_to(elsewhere)
    try:
        out = ask(git_repo, fake_model, runtime, tmp_path / "m")
    finally:
        impostor.close()
    assert impostor.connections == 0 and impostor.heard == b""
    answered_in_process_and_replaced(out, tmp_path / "m", runtime)
    assert elsewhere.exists() and not run_socket(runtime).is_symlink()


def test_an_open_socket_folder_is_not_used(git_repo: Path, fake_model: Any, runtime: Path,
                                           tmp_path: Path) -> None:
    os.chmod(runtime / "valarmind", 0o777)
    out = ask(git_repo, fake_model, runtime, tmp_path / "m")
    assert out.returncode == 0 and out.stdout == "Hello.\n", out.stderr
    assert (tmp_path / "m").read_text() == "in-process"
    time.sleep(1)
    assert not run_socket(runtime).exists()  # and no server was started there


def test_a_server_of_another_build_hears_no_request(
        git_repo: Path, fake_model: Any, runtime: Path, tmp_path: Path) -> None:
    """An older server answers the hello with its own build: no environment, argument or
    descriptor reaches it, and a server of this build takes its place."""
    impostor = FrameImpostor(run_socket(runtime), answer=frame(b'{"hello": "0.0.1/1/x"}'))
    os.chmod(impostor.path, 0o600)
    try:
        out = ask(git_repo, fake_model, runtime, tmp_path / "m")
    finally:
        impostor.close()
    assert impostor.heard.startswith(frame(b"")[:0]) and b'"hello"' in impostor.heard
    assert b"argv" not in impostor.heard and SENTINEL.encode() not in impostor.heard
    assert impostor.fds == 0
    answered_in_process_and_replaced(out, tmp_path / "m", runtime)


def test_a_server_whose_code_changed_on_disk_is_not_used(
        git_repo: Path, fake_model: Any, runtime: Path, tmp_path: Path) -> None:
    """An upgrade or an edit of the installation: the warm server's modules are stale, so
    the run goes in-process and a new server (importing the new code) takes the place."""
    assert ask(git_repo, fake_model, runtime, tmp_path / "first").returncode == 0
    old = wait_for_server(runtime)
    module = PACKAGE / "cli" / "runserver" / "__init__.py"
    before = os.stat(module)
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    try:
        out = ask(git_repo, fake_model, runtime, tmp_path / "m")
        assert out.returncode == 0 and (tmp_path / "m").read_text() == "in-process"
        assert wait_gone(old, 20), "the stale server still serves"
        assert wait_for_server(runtime) != old
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))


# -- what the server holds, and what one run leaves for the next -------------------------------


def test_the_servers_environment_holds_no_key(git_repo: Path, fake_model: Any,
                                              runtime: Path, tmp_path: Path) -> None:
    """The run that starts the server has the key and a token: the server inherits neither."""
    out = ask(git_repo, fake_model, runtime, tmp_path / "m", GITHUB_TOKEN=SENTINEL + "-gh")
    assert out.returncode == 0, out.stderr
    environ = Path(f"/proc/{wait_for_server(runtime)}/environ").read_bytes()
    assert SENTINEL.encode() not in environ
    assert b"GITHUB_TOKEN" not in environ and b"OPENAI_API_KEY" not in environ


def test_one_runs_key_does_not_reach_the_next(git_repo: Path, fake_model: Any,
                                              runtime: Path, tmp_path: Path) -> None:
    assert ask(git_repo, fake_model, runtime, tmp_path / "first").returncode == 0
    wait_for_server(runtime)
    assert ask(git_repo, fake_model, runtime, tmp_path / "keyed").returncode == 0
    assert (tmp_path / "keyed").read_text() == "served"
    fake_model.script(*[ScriptedTurn(text="Hello.")] * 2)
    runs = {}
    for way, extra in (("served", {}), ("in-process", {"VALARMIND_RUN_SERVER": "0"})):
        runs[way] = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo,
                           marker=tmp_path / way,
                           env={**server_on(runtime), "VALARMIND_TEST_KEY": "", **extra})
        assert (tmp_path / way).read_text() == way
    assert runs["served"].returncode == runs["in-process"].returncode
    assert runs["served"].stderr == runs["in-process"].stderr
    assert not any(SENTINEL in str(headers) for headers in fake_model.request_headers[2:])


def test_the_server_keeps_the_repository_off_its_import_path(warm: int) -> None:
    pid = warm
    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert b"-P" in command  # no working folder or script folder on sys.path
    assert os.readlink(f"/proc/{pid}/cwd") == "/"
    environ = dict(line.split(b"=", 1) for line in
                   Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in line)
    assert environ[b"PYTHONPATH"] == str(PACKAGE.parent).encode()


# -- what a forked run is handed -------------------------------------------------------------


def stalled_run(git_repo: Path, fake_model: Any, runtime: Path, server: int, tmp_path: Path,
                prefix: tuple[str, ...] = ()
                ) -> Iterator[tuple[subprocess.Popen[str], int, int]]:
    """A served run waiting on the model: (its client, the server, the forked child)."""
    fake_model.script(ScriptedTurn(text="Slow.", fault="stall_first", stall_s=30))
    asked = len(fake_model.requests)
    answer = tmp_path / "answer.txt"
    with answer.open("w") as out:
        run = start_client("-p", "say hi", *model_flags(fake_model), cwd=git_repo,
                           env=server_on(runtime), marker=tmp_path / "m", prefix=prefix,
                           stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE)
    try:
        child = served_child(server, run.pid)
        deadline = time.monotonic() + 30
        while len(fake_model.requests) == asked and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(fake_model.requests) > asked, "the run never asked the model"
        yield run, server, child
    finally:
        run.kill()
        run.wait()


@pytest.fixture
def stalled(git_repo: Path, fake_model: Any, warm_runtime: Path, warm: int, tmp_path: Path
            ) -> Iterator[tuple[subprocess.Popen[str], int, int]]:
    yield from stalled_run(git_repo, fake_model, warm_runtime, warm, tmp_path)


def test_the_childs_stdin_and_stdout_are_the_clients(
        stalled: tuple[subprocess.Popen[str], int, int]) -> None:
    run, _server, child = stalled
    for fd in (0, 1, 2):
        assert os.readlink(f"/proc/{child}/fd/{fd}") == os.readlink(f"/proc/{run.pid}/fd/{fd}")
    assert os.readlink(f"/proc/{child}/fd/1").endswith("answer.txt")
    assert os.readlink(f"/proc/{child}/fd/0").startswith("pipe:")
    assert os.readlink(f"/proc/{child}/cwd") == os.readlink(f"/proc/{run.pid}/cwd")


def test_a_killed_client_ends_its_run(stalled: tuple[subprocess.Popen[str], int, int]) -> None:
    run, server, child = stalled
    run.send_signal(signal.SIGKILL)
    run.wait()
    assert wait_gone(child, 10), "the run goes on with its client gone"
    assert wait_gone(server, 0.5) is False  # the server itself stays


@pytest.mark.usefixtures("warm")
def test_a_run_that_may_ask_in_a_terminal_is_not_served(
        git_repo: Path, fake_model: Any, warm_runtime: Path, tmp_path: Path) -> None:
    """stdin and stdout a terminal: `-p` may ask its questions there, and the forked child
    has no controlling terminal, so the run stays in-process."""
    fake_model.script(ScriptedTurn(text="Hello."))
    parent, child = pty.openpty()
    try:
        out = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo,
                     env=server_on(warm_runtime), marker=tmp_path / "m", stdin=child,
                     stdout=child, stderr=subprocess.PIPE)
        assert out.returncode == 0, out.stderr
        assert b"Hello." in os.read(parent, 65536)
    finally:
        os.close(parent)
        os.close(child)
    assert (tmp_path / "m").read_text() == "in-process"


def test_the_clients_resource_limits_are_the_runs(
        git_repo: Path, fake_model: Any, warm_runtime: Path, warm: int, tmp_path: Path
) -> None:
    """`prlimit --nofile=256:512 valarmind -p ...`: the forked run has the client's limit."""
    runs = stalled_run(git_repo, fake_model, warm_runtime, warm, tmp_path,
                       prefix=("prlimit", "--nofile=256:512", "--"))
    _run, _server, child = next(runs)
    try:
        limits = Path(f"/proc/{child}/limits").read_text()
    finally:
        runs.close()
    assert any(line.startswith("Max open files") and line.split()[3:5] == ["256", "512"]
               for line in limits.splitlines()), limits


def test_a_client_in_another_namespace_is_not_served(
        git_repo: Path, fake_model: Any, warm_runtime: Path, tmp_path: Path,
        request: pytest.FixtureRequest) -> None:
    """A client in a mount namespace of its own (a sandbox, a container) that still reaches
    the socket: its run must not escape into the server's world, so it runs in-process."""
    if os.getuid() != 0:
        pytest.skip("unshare --mount needs root here")
    request.getfixturevalue("warm")
    fake_model.script(ScriptedTurn(text="Hello."))
    out = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo,
                 env=server_on(warm_runtime), marker=tmp_path / "m", prefix=("unshare", "--mount"))
    assert out.returncode == 0 and out.stdout == "Hello.\n", out.stderr
    assert (tmp_path / "m").read_text() == "in-process"


# -- the sandbox cannot reach it ---------------------------------------------------------------


@pytest.mark.parametrize("place", ["runtime", "data"])
async def test_a_sandboxed_command_cannot_reach_the_run_server(
        place: str, sandbox: Sandbox, git_repo: Path, fake_model: Any,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """It runs as the same user, so only the sandbox's hiding of both places keeps it out."""
    with home_outside_tmp(monkeypatch) as home:
        if place == "runtime":
            if not os.access("/run", os.W_OK):
                pytest.skip("/run is not writable here")
            runtime = Path("/run") / f"valarmind-test-{os.getpid()}-{id(home)}"
            runtime.mkdir(mode=0o700)
            env = server_on(runtime)
            path = run_socket(runtime)
        else:
            runtime = home / "no-runtime"
            monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
            env = {**server_on(runtime), "XDG_RUNTIME_DIR": ""}
            path = home / ".local/share/valarmind/run/run.sock"
        try:
            out = ask(git_repo, fake_model, runtime, tmp_path / "m",
                      **{**env, "HOME": str(home)})
            assert out.returncode == 0, out.stderr
            deadline = time.monotonic() + 20
            while not path.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert path.exists()
            monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
            bash = Bash(sandbox=sandbox)
            result = await bash.run(bash.parse({"command": (
                "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); "
                "s.connect(sys.argv[1]); print('CONNECTED')\" " + str(path))}),
                ToolContext(project_root=git_repo))
            assert "CONNECTED" not in result.output
        finally:
            end_servers_at(path)
            if place == "runtime":
                import shutil

                shutil.rmtree(runtime, ignore_errors=True)
