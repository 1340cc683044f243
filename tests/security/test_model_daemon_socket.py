"""The model daemon's socket (providers/daemon/): each test plants what another user, a stale run
or a hostile command could leave where `valarmind -p` looks for its daemon, and checks that the
run neither talks to it nor fails, and that what the daemon keeps holds no key.

Runs are real processes against the fake model server; the key is the sentinel.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon_help import (
    Impostor,
    daemon_on,
    daemon_pid,
    daemons_ended,
    greeting,
    runtime_folder,
    socket_of,
    wait_gone,
)
from tests.fakes.model_server import ScriptedTurn
from tests.security.conftest import SENTINEL, home_outside_tmp
from tests.test_headless import configure_key, model_flags, valarmind
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.shell.bash import Bash

OTHER_UID = 65534  # nobody


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    folder = runtime_folder(tmp_path)
    (folder / "valarmind").mkdir(mode=0o700)
    with daemons_ended(folder):
        yield folder


def ask(repo: Path, fake_model: Any, runtime: Path, **extra_env: str) -> Any:
    configure_key(repo, "VALARMIND_TEST_KEY")
    fake_model.script(ScriptedTurn(text="Hello."))
    return valarmind("-p", "say hi", *model_flags(fake_model), cwd=repo,
                     env={**daemon_on(runtime), **extra_env})


def answered_by_a_daemon_of_ours(out: Any, runtime: Path) -> None:
    assert out.returncode == 0 and out.stdout == "Hello.\n", out.stderr
    path = socket_of(runtime)
    info = os.lstat(path)
    assert not path.is_symlink() and info.st_uid == os.getuid() and info.st_mode & 0o777 == 0o600
    assert daemon_pid(runtime) is not None


def needs_root() -> None:
    if os.getuid() != 0:
        pytest.skip("planting a socket of another user needs root")


def test_another_users_socket_is_not_used(git_repo: Path, fake_model: Any,
                                          runtime: Path) -> None:
    needs_root()
    impostor = Impostor(socket_of(runtime)).listen()
    os.chown(impostor.path, OTHER_UID, OTHER_UID)
    os.chmod(impostor.path, 0o600)
    try:
        out = ask(git_repo, fake_model, runtime)
    finally:
        impostor.close()
    assert impostor.connections == 0 and impostor.heard == []
    answered_by_a_daemon_of_ours(out, runtime)


def test_a_world_writable_socket_is_not_used(git_repo: Path, fake_model: Any,
                                             runtime: Path) -> None:
    impostor = Impostor(socket_of(runtime)).listen()
    os.chmod(impostor.path, 0o777)
    try:
        out = ask(git_repo, fake_model, runtime)
    finally:
        impostor.close()
    assert impostor.connections == 0 and impostor.heard == []
    answered_by_a_daemon_of_ours(out, runtime)


def test_a_listener_of_another_user_behind_our_file_hears_no_hello(
        git_repo: Path, fake_model: Any, runtime: Path) -> None:
    """The file is ours and 0600, but the process listening runs as another user: the peer
    credentials (SO_PEERCRED) give it away before anything is sent."""
    needs_root()
    path = socket_of(runtime)
    listener = subprocess.Popen([sys.executable, "-c", (
        "import os, socket, sys\n"
        "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600)\n"
        f"os.setresgid({OTHER_UID}, {OTHER_UID}, {OTHER_UID})\n"
        f"os.setresuid({OTHER_UID}, {OTHER_UID}, {OTHER_UID})\n"
        "s.listen(); print('listening', flush=True)\n"
        "while True:\n"
        "    c, _ = s.accept(); c.settimeout(3)\n"
        "    try: print('HEARD', c.recv(4096), flush=True)\n"
        "    except OSError: print('HEARD', b'', flush=True)\n"), str(path)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert listener.stdout is not None and listener.stdout.readline() == "listening\n"
        assert os.lstat(path).st_uid == os.getuid()
        out = ask(git_repo, fake_model, runtime)
    finally:
        listener.kill()
        heard = listener.communicate()[0]
    assert "HEARD b'{" not in heard and SENTINEL not in heard
    answered_by_a_daemon_of_ours(out, runtime)


def test_a_socket_path_that_is_a_link_is_not_followed(git_repo: Path, fake_model: Any,
                                                      runtime: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.sock"
    impostor = Impostor(elsewhere).listen()
    os.chmod(elsewhere, 0o600)
    socket_of(runtime).symlink_to(elsewhere)
    try:
        out = ask(git_repo, fake_model, runtime)
    finally:
        impostor.close()
    assert impostor.connections == 0 and impostor.heard == []
    assert elsewhere.exists() and not elsewhere.is_symlink()  # the link replaced, not its target
    answered_by_a_daemon_of_ours(out, runtime)


def test_a_stale_socket_is_replaced(git_repo: Path, fake_model: Any, runtime: Path) -> None:
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_of(runtime)))
    os.chmod(socket_of(runtime), 0o600)
    stale.close()  # a daemon killed without cleaning up: the file stays, nobody listens
    old_inode = os.lstat(socket_of(runtime)).st_ino
    out = ask(git_repo, fake_model, runtime)
    answered_by_a_daemon_of_ours(out, runtime)
    assert os.lstat(socket_of(runtime)).st_ino != old_inode


def test_an_open_socket_folder_is_not_used(git_repo: Path, fake_model: Any,
                                           runtime: Path) -> None:
    os.chmod(runtime / "valarmind", 0o777)
    out = ask(git_repo, fake_model, runtime)
    assert out.returncode == 0 and out.stdout == "Hello.\n", out.stderr
    assert not socket_of(runtime).exists()  # the run called the model itself


def test_a_daemon_of_another_version_is_not_used(git_repo: Path, fake_model: Any,
                                                 runtime: Path) -> None:
    """An older daemon answers our hello with its own build: no request reaches it, and a
    daemon of this build takes its place."""
    impostor = Impostor(socket_of(runtime), answer={"hello": "0.0.1/1/0123456789ab",
                                                     "pid": 1, "ready": True})
    os.chmod(impostor.path, 0o600)
    impostor.listen()
    try:
        out = ask(git_repo, fake_model, runtime)
    finally:
        impostor.close()
    assert impostor.heard, "the client never greeted the old daemon"
    assert all(set(json.loads(line)) == {"hello"} for line in impostor.heard)
    assert SENTINEL.encode() not in b"".join(impostor.heard)
    answered_by_a_daemon_of_ours(out, runtime)


def test_a_real_daemon_greeted_by_another_build_leaves(git_repo: Path, fake_model: Any,
                                                       runtime: Path) -> None:
    assert ask(git_repo, fake_model, runtime).returncode == 0
    pid = daemon_pid(runtime)
    assert pid is not None
    answer = greeting(socket_of(runtime), hello="9.9.9/99/ffffffffffff")
    assert answer is not None and answer["hello"] != "9.9.9/99/ffffffffffff"
    assert wait_gone(pid, 15), "a daemon another build met is still serving"


def test_the_daemons_environment_holds_no_key(git_repo: Path, fake_model: Any,
                                              runtime: Path) -> None:
    """Neither the key the run sent nor any other secret of the run's environment."""
    out = ask(git_repo, fake_model, runtime, GITHUB_TOKEN=SENTINEL + "-gh")
    assert out.returncode == 0, out.stderr
    assert fake_model.request_headers[-1].get("authorization") == f"Bearer {SENTINEL}"
    pid = daemon_pid(runtime)
    assert pid is not None
    environ = Path(f"/proc/{pid}/environ").read_bytes()
    assert SENTINEL.encode() not in environ
    assert b"GITHUB_TOKEN" not in environ and b"OPENAI_API_KEY" not in environ


PROBE = """
import asyncio, gc, signal, sys
from pathlib import Path
from valarmind_tui.providers.daemon import server

needle = sys.argv[2][::-1]  # given reversed: no copy of the key is made here but this one

def holding() -> None:
    frozen = gc.get_freeze_count()
    gc.unfreeze()  # frozen objects are not in gc.get_objects(): look at them too
    found = 0
    for holder in gc.get_objects():
        for held in gc.get_referents(holder):
            if held is needle or not isinstance(held, str | bytes | bytearray):
                continue
            text = held if isinstance(held, str) else bytes(held).decode("latin-1")
            found += needle in text
    print("HOLDING", found, "FROZEN", frozen, flush=True)

def frozen() -> None:
    print("FROZEN", gc.get_freeze_count(), flush=True)

async def main() -> None:
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, holding)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, frozen)
    await server.serve(Path(sys.argv[1]), 60)

asyncio.run(main())
"""


def said(probe: subprocess.Popen[str], sig: signal.Signals) -> str:
    """The probe daemon's answer to `sig` (SIGUSR1: HOLDING n FROZEN m; SIGUSR2: FROZEN m)."""
    assert probe.stdout is not None
    probe.send_signal(sig)
    line = probe.stdout.readline()
    assert "FROZEN " in line, f"the probe daemon said {line!r}"
    return line


def frozen(probe: subprocess.Popen[str]) -> int:
    return int(said(probe, signal.SIGUSR2).split()[1])


def test_no_live_object_of_the_daemon_holds_the_key_after_the_request(
        git_repo: Path, fake_model: Any, runtime: Path) -> None:
    """The real daemon's code (with a probe that counts, on a signal, the live objects whose
    strings hold the key, frozen ones too) serves a run; after the answer nothing in it holds
    the key, and what lived then was frozen (the next run's collections skip it)."""
    from valarmind_tui.providers.daemon.protocol import daemon_env

    probe = subprocess.Popen(
        [sys.executable, "-P", "-c", PROBE, str(socket_of(runtime)), SENTINEL[::-1]],
        env=daemon_env(), cwd="/", stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while (answer := greeting(socket_of(runtime))) is None or not answer["ready"]:
            assert time.monotonic() < deadline, "the probe daemon never imported LiteLLM"
            time.sleep(0.1)
        before = frozen(probe)  # LiteLLM's import, frozen
        out = ask(git_repo, fake_model, runtime)
        assert out.returncode == 0, out.stderr
        assert fake_model.request_headers[-1].get("authorization") == f"Bearer {SENTINEL}"
        assert daemon_pid(runtime) == probe.pid  # the probe served it
        # the daemon settles (forgets its clients, collects, freezes) once the run has gone:
        # waited for, not slept for, so a loaded machine is given the time it takes
        deadline = time.monotonic() + 30
        while frozen(probe) <= before and time.monotonic() < deadline:
            time.sleep(0.05)
        line = said(probe, signal.SIGUSR1)
    finally:
        probe.kill()
        probe.wait()
    assert line.startswith("HOLDING 0 "), f"objects of the daemon still hold the key: {line}"
    assert int(line.split()[3]) > before  # the call's survivors (the OpenAI SDK) were frozen


RACE = """
import asyncio, gc, sys, types, weakref
from valarmind_tui.providers.daemon import server

class Client:  # a provider client: its key, and cycles (the SDK's clients are full of them)
    def __init__(self, closed):
        self.api_key, self.me, self.closed = sys.argv[1], self, closed
    async def close(self):
        await self.closed.wait()

async def main():
    closed = asyncio.Event()
    cache = types.SimpleNamespace(cache_dict={"client": Client(closed)})
    cache.flush_cache = cache.cache_dict.clear
    sys.modules["litellm"] = types.SimpleNamespace(in_memory_llm_clients_cache=cache)
    client = weakref.ref(cache.cache_dict["client"])
    first = asyncio.ensure_future(server.forget_clients(lambda: True))  # the stream's end
    await asyncio.sleep(0)  # closing the client
    await server.forget_clients(lambda: True)  # the run left meanwhile
    closed.set()
    await first
    gc.collect()
    print("KEPT" if client() is not None else "GONE", gc.get_freeze_count() > 0)

asyncio.run(main())
"""


def test_a_client_still_closing_when_the_run_leaves_is_not_frozen_with_its_key() -> None:
    """The stream's end forgets the clients (closing them takes a moment); the run leaving
    meanwhile forgot again, found none cached, collected and froze what lived: the client
    being closed, key and all, kept for the daemon's life (frozen objects are never
    collected). Seen under load as HOLDING 1 once the daemon had settled."""
    out = subprocess.run([sys.executable, "-c", RACE, SENTINEL], capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.split() == ["GONE", "True"], out.stdout + out.stderr


# -- the sandbox cannot reach it ---------------------------------------------------------------


@pytest.mark.parametrize("place", ["runtime", "data"])
async def test_a_sandboxed_command_cannot_reach_the_daemon(
        place: str, sandbox: Sandbox, git_repo: Path, fake_model: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under $XDG_RUNTIME_DIR (in /run here) or in the data dir under HOME: the command runs
    as the same user, so only the sandbox's hiding of both keeps it out."""
    with home_outside_tmp(monkeypatch) as home:
        if place == "runtime":
            if not os.access("/run", os.W_OK):
                pytest.skip("/run is not writable here")
            runtime = Path("/run") / f"valarmind-test-{os.getpid()}-{id(home)}"
            runtime.mkdir(mode=0o700)
            env = daemon_on(runtime)
            path = socket_of(runtime)
        else:
            runtime = home / "no-runtime"
            monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
            env = {**daemon_on(runtime), "XDG_RUNTIME_DIR": ""}
            path = home / ".local/share/valarmind/run/model.sock"
        try:
            configure_key(git_repo, "VALARMIND_TEST_KEY")
            fake_model.script(ScriptedTurn(text="Hello."))
            out = valarmind("-p", "say hi", *model_flags(fake_model), cwd=git_repo,
                            env={**env, "HOME": str(home)})
            assert out.returncode == 0, out.stderr
            assert path.exists() and greeting(path) is not None
            monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
            bash = Bash(sandbox=sandbox)
            result = await bash.run(bash.parse({"command": (
                "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); "
                "s.connect(sys.argv[1]); print('CONNECTED')\" " + str(path))}),
                ToolContext(project_root=git_repo))
            assert "CONNECTED" not in result.output
        finally:
            answer = greeting(path)
            if answer is not None:
                os.kill(int(answer["pid"]), 15)  # type: ignore[call-overload]
                wait_gone(int(answer["pid"]), 5)  # type: ignore[call-overload]
            if place == "runtime":
                import shutil

                shutil.rmtree(runtime, ignore_errors=True)
