"""`valarmind -p` through the run server (cli/runserver/), as real processes: the first run
starts the server and runs in-process, the next ones are forked by it from its warm modules
and give what an in-process run gives (the answer, the exit codes, stdout and stderr), write
where the client's stdout points, use the client's environment, and are ended by Ctrl-C as
an in-process run is."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.daemon_help import end_daemons_started_in, runtime_folder, wait_gone
from tests.fakes.model_server import ScriptedTurn
from tests.run_server_help import (
    client,
    run_socket,
    server_on,
    server_pid,
    servers_ended,
    start_client,
)
from tests.test_headless import configure_key, model_flags
from valarmind_tui.cli.parser import SUBCOMMANDS
from valarmind_tui.cli.runserver.client import NEVER_SERVED, ONE_SHOT_WORDS
from valarmind_tui.cli.runserver.protocol import build, recv_frame, send_frame

ENV = {"FAKE_API_KEY": "sk-test"}
IN_PROCESS = {"VALARMIND_RUN_SERVER": "0"}


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    folder = runtime_folder(tmp_path)
    with servers_ended(folder):
        yield folder


@pytest.fixture(scope="module")
def served_runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The runtime folder of the module's warm run server: one server serves every test that
    only needs one running (each run is a fresh fork, as for a user's runs one after another)."""
    folder = runtime_folder(tmp_path_factory.mktemp("served"))
    with servers_ended(folder):
        yield folder


@pytest.fixture
def served(git_repo: Path, fake_model: Any, served_runtime: Path, tmp_path: Path
           ) -> dict[str, str]:
    """The environment of runs served by a warm run server (started by a first run, when none
    answers yet)."""
    configure_key(git_repo)
    env = {**ENV, **server_on(served_runtime)}
    if server_pid(served_runtime) is not None:
        return env
    fake_model.script(ScriptedTurn(text="Warming."))
    first = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo, env=env,
                   marker=tmp_path / "first")
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "first").read_text() == "in-process"
    deadline = time.monotonic() + 20
    while server_pid(served_runtime) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_pid(served_runtime) is not None, "the first run started no run server"
    fake_model.requests.clear()
    fake_model.request_headers.clear()
    return env


def both(args: list[str], repo: Path, env: dict[str, str], tmp_path: Path, **popen: Any
         ) -> tuple[Any, Any]:
    """The command served, then in-process; each checked to have gone that way."""
    through = client(*args, cwd=repo, env=env, marker=tmp_path / "through", **popen)
    alone = client(*args, cwd=repo, env={**env, **IN_PROCESS}, marker=tmp_path / "alone",
                   **popen)
    assert (tmp_path / "through").read_text() == "served", through.stderr
    assert (tmp_path / "alone").read_text() == "in-process"
    return through, alone


def test_a_served_run_answers_as_an_in_process_one(
        git_repo: Path, fake_model: Any, served: dict[str, str], tmp_path: Path) -> None:
    fake_model.script(*[ScriptedTurn(text="Hi there.")] * 2)
    through, alone = both(["-p", "say hi", *model_flags(fake_model)], git_repo, served,
                          tmp_path)
    assert through.returncode == alone.returncode == 0, through.stderr
    assert through.stdout == alone.stdout == "Hi there.\n"
    assert through.stderr == alone.stderr
    assert fake_model.requests[0]["messages"] == fake_model.requests[1]["messages"]


def test_a_provider_failure_exits_1_as_in_process(
        git_repo: Path, fake_model: Any, served: dict[str, str], tmp_path: Path) -> None:
    refused = ScriptedTurn(status=401, error="invalid api key")
    fake_model.script(refused, refused)
    through, alone = both(["-p", "say hi", *model_flags(fake_model)], git_repo, served,
                          tmp_path)
    assert through.returncode == alone.returncode == 1
    assert through.stderr == alone.stderr and "invalid api key" in through.stderr


@pytest.mark.parametrize("args", [["--max-turns", "many"], ["--no-such-flag"]])
def test_a_usage_error_exits_2_as_in_process(
        args: list[str], git_repo: Path, fake_model: Any, served: dict[str, str],
        tmp_path: Path) -> None:
    through, alone = both(["-p", "say hi", *model_flags(fake_model), *args], git_repo,
                          served, tmp_path)
    assert through.returncode == alone.returncode == 2
    assert through.stderr == alone.stderr and "usage:" in through.stderr
    assert fake_model.requests == []


def test_a_spent_budget_exits_8_as_in_process(
        git_repo: Path, fake_model: Any, served: dict[str, str], tmp_path: Path) -> None:
    look = ScriptedTurn(tool_calls=[{"name": "glob", "arguments": {"pattern": "*"}}])
    fake_model.script(*[look] * 6)
    through, alone = both(["-p", "look around", "--max-turns", "1",
                           *model_flags(fake_model)], git_repo, served, tmp_path)
    assert through.returncode == alone.returncode == 8, through.stderr
    assert through.stdout == alone.stdout and through.stderr == alone.stderr


def test_a_prompt_on_stdin_is_read_as_in_process(
        git_repo: Path, fake_model: Any, served: dict[str, str], tmp_path: Path) -> None:
    """`echo hi | valarmind -p`: -p wants its task as an argument, in-process as served (the
    usage error, exit 2); stdin reaches the child: see the security tests (same pipe)."""
    through, alone = both(["-p", *model_flags(fake_model)], git_repo, served, tmp_path,
                          input="hi\n")
    assert through.returncode == alone.returncode
    assert through.stdout == alone.stdout and through.stderr == alone.stderr


def test_the_answer_goes_where_the_clients_stdout_points(
        git_repo: Path, fake_model: Any, served: dict[str, str], tmp_path: Path) -> None:
    fake_model.script(ScriptedTurn(text="Into the file."))
    answer = tmp_path / "answer.txt"
    with answer.open("w") as out:
        run = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo, env=served,
                     marker=tmp_path / "m", stdout=out, stderr=subprocess.PIPE)
    assert (tmp_path / "m").read_text() == "served"
    assert run.returncode == 0, run.stderr
    assert answer.read_text() == "Into the file.\n"


def test_the_clients_environment_is_the_runs(
        git_repo: Path, fake_model: Any, served: dict[str, str], served_runtime: Path,
        tmp_path: Path) -> None:
    """A key only this client has is the one the model receives; the server never holds it."""
    fake_model.script(*[ScriptedTurn(text="Keyed.")] * 2)
    env = {**served, "FAKE_API_KEY": "sk-only-this-client"}
    run = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo, env=env,
                 marker=tmp_path / "m")
    assert (tmp_path / "m").read_text() == "served" and run.returncode == 0, run.stderr
    sent = {k.lower(): v for k, v in fake_model.request_headers[-1].items()}
    assert sent["authorization"] == "Bearer sk-only-this-client"
    pid = server_pid(served_runtime)
    assert pid is not None
    assert b"sk-only-this-client" not in Path(f"/proc/{pid}/environ").read_bytes()
    assert b"sk-test" not in Path(f"/proc/{pid}/environ").read_bytes()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130),
                                               (signal.SIGTERM, -signal.SIGTERM),
                                               (signal.SIGHUP, -signal.SIGHUP)])
def test_a_signal_ends_the_run_as_in_process(
        signum: int, code: int, git_repo: Path, fake_model: Any, served: dict[str, str],
        tmp_path: Path) -> None:
    """Ctrl-C (130, from main's KeyboardInterrupt), SIGTERM and SIGHUP (the process ended by
    the signal): the client forwards it, and ends as the in-process run ends."""
    codes = {}
    for way, env in (("served", served), ("in-process", {**served, **IN_PROCESS})):
        fake_model.script(ScriptedTurn(text="Slow.", fault="stall_first", stall_s=20))
        asked = len(fake_model.requests)
        run = start_client("-p", "say hi", *model_flags(fake_model), cwd=git_repo, env=env,
                           marker=tmp_path / way, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while len(fake_model.requests) == asked and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(fake_model.requests) > asked, "the run never asked the model"
        started = time.monotonic()
        run.send_signal(signum)
        run.communicate(timeout=15)
        assert time.monotonic() - started < 10
        assert (tmp_path / way).read_text() == way
        codes[way] = run.returncode
    assert codes["served"] == codes["in-process"] == code


@pytest.mark.parametrize("set_in", ["env", "config"])
def test_the_server_leaves_after_its_idle_time(
        set_in: str, git_repo: Path, fake_model: Any, runtime: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    configure_key(git_repo)
    fake_model.script(*[ScriptedTurn(text="Once.")] * 3)
    env = {**ENV, **server_on(runtime), "VALARMIND_MODEL_DAEMON_IDLE_S": "2"}
    if set_in == "config":  # the user's config.toml, read by the client that starts it
        del env["VALARMIND_MODEL_DAEMON_IDLE_S"]
        monkeypatch.delenv("VALARMIND_MODEL_DAEMON_IDLE_S", raising=False)
        write_user_config('api_key_env = "FAKE_API_KEY"\nmodel_daemon_idle_s = 2\n')
    pid = None
    for _ in range(3):  # a run slower than the idle time outlives the server it started
        run = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo, env=env,
                     marker=tmp_path / "m")
        assert run.returncode == 0, run.stderr
        if (pid := server_pid(runtime)) is not None:
            break
    assert pid is not None
    assert wait_gone(pid, 20)
    assert server_pid(runtime) is None


@pytest.mark.parametrize("switch", ["config", "flag", "env"])
def test_the_daemon_switches_turn_it_off(switch: str, git_repo: Path, fake_model: Any,
                                         runtime: Path, tmp_path: Path) -> None:
    configure_key(git_repo)
    env, extra = {**ENV, **server_on(runtime)}, []
    if switch == "config":
        write_user_config('api_key_env = "FAKE_API_KEY"\nmodel_daemon = false\n')
    elif switch == "flag":
        extra = ["--no-daemon"]
    else:
        env["VALARMIND_MODEL_DAEMON"] = "0"
    fake_model.script(*[ScriptedTurn(text="Alone.")] * 2)
    for number in range(2):
        run = client("-p", "say hi", *model_flags(fake_model), *extra, cwd=git_repo, env=env,
                     marker=tmp_path / f"m{number}")
        assert run.returncode == 0 and run.stdout == "Alone.\n", run.stderr
        assert (tmp_path / f"m{number}").read_text() == "in-process"
    assert not run_socket(runtime).exists()


def test_a_server_gone_before_the_run_started_leaves_it_in_process(
        git_repo: Path, fake_model: Any, runtime: Path, tmp_path: Path) -> None:
    """It greets as this build, takes the request and the descriptors, and closes: the run
    was not started, so the client runs it itself."""
    configure_key(git_repo)
    (runtime / "valarmind").mkdir(mode=0o700)
    path = run_socket(runtime)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o600)
    listener.listen()
    got: list[int] = []

    def serve_once() -> None:
        conn, _ = listener.accept()
        with conn:
            recv_frame(conn)
            send_frame(conn, {"hello": build(), "server": os.getpid()})
            request, fds = recv_frame(conn, max_fds=3)
            got.extend(fds)
            for fd in fds:
                os.close(fd)

    thread = threading.Thread(target=serve_once, daemon=True)
    thread.start()
    fake_model.script(ScriptedTurn(text="Here."))
    try:
        run = client("-p", "say hi", *model_flags(fake_model), cwd=git_repo,
                     env={**ENV, **server_on(runtime)}, marker=tmp_path / "m")
    finally:
        thread.join(5)
        listener.close()
    assert len(got) == 3  # it was handed over, then the server was gone
    assert run.returncode == 0 and run.stdout == "Here.\n", run.stderr
    assert (tmp_path / "m").read_text() == "in-process"


def test_run_is_served_and_writes_its_output(
        git_repo: Path, fake_model: Any, served: dict[str, str], tmp_path: Path) -> None:
    """`valarmind run --agent P --prompt F --output O`: served, the same file and exit code as
    in-process (3 when the profile's turns run out)."""
    write_user_config(
        f'api_key_env = "FAKE_API_KEY"\n[profiles.short]\nmodel = "openai/fake-model"\n'
        f'api_base = "{fake_model.openai_base}"\napi_key_env = "FAKE_API_KEY"\nmax_turns = 2\n')
    prompt = tmp_path / "p.md"
    prompt.write_text("Look around.")
    call = {"name": "glob", "arguments": {"pattern": "*"}}
    fake_model.script(*[ScriptedTurn(text="looking", tool_calls=[call])] * 4)
    outputs = {}
    for way in ("through", "alone"):
        output = tmp_path / f"{way}.md"
        run = client("run", "--agent", "short", "--prompt", str(prompt), "--output",
                     str(output), cwd=git_repo, marker=tmp_path / f"m-{way}",
                     env={**served, **(IN_PROCESS if way == "alone" else {})})
        assert run.returncode == 3, run.stderr
        outputs[way] = output.read_text()
    assert (tmp_path / "m-through").read_text() == "served"
    assert (tmp_path / "m-alone").read_text() == "in-process"
    assert outputs["through"] == outputs["alone"] and outputs["through"].startswith(
        "## INCOMPLETE")


def test_a_subcommand_the_server_declines_starts_no_server(
        git_repo: Path, runtime: Path, tmp_path: Path) -> None:
    """An editor runs `valarmind mcp serve` with pipes for stdout; `map` | cat the same: no
    run server is started for a command it would decline, so none waits out its idle time."""
    run = client("map", "--tokens", "200", cwd=git_repo, env=server_on(runtime),
                 marker=tmp_path / "m", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "m").read_text() == "in-process"
    assert end_daemons_started_in(runtime / "valarmind") == []


def test_the_client_knows_every_subcommand_the_server_declines() -> None:
    assert set(SUBCOMMANDS) - ONE_SHOT_WORDS == NEVER_SERVED
