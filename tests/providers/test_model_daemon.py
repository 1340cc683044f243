"""`valarmind -p` through the model daemon, as real processes: the second run is served by the
daemon the first one started (and imports no litellm), the answers are those of `--no-daemon`,
the daemon leaves when idle, a killed one is replaced, and a stream that goes wrong is reported
as it is without the daemon."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.test_headless_stream_faults as faults
from tests.daemon_help import daemon_on, daemon_pid, daemons_ended, runtime_folder, wait_gone
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import configure_key, model_flags, valarmind

ENV = {"FAKE_API_KEY": "sk-test"}


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    folder = runtime_folder(tmp_path)
    with daemons_ended(folder):
        yield folder


def ask(repo: Path, fake_model: Any, env: dict[str, str], *extra: str) -> Any:
    return valarmind("-p", "say hi", *model_flags(fake_model), *extra, cwd=repo,
                     env={**ENV, **env})


def test_the_second_run_is_served_by_the_daemon_the_first_started(
        git_repo: Path, fake_model: Any, runtime: Path) -> None:
    configure_key(git_repo)
    fake_model.script(*[ScriptedTurn(text="Hi there, twice.")] * 3)
    first = ask(git_repo, fake_model, daemon_on(runtime))
    assert first.returncode == 0, first.stderr
    pid = daemon_pid(runtime)
    assert pid is not None, "no daemon answers after the first run"
    second = ask(git_repo, fake_model, {**daemon_on(runtime), "PYTHONPROFILEIMPORTTIME": "1"})
    assert second.returncode == 0, second.stderr
    imported = {line.split("|")[-1].strip().split(".")[0]
                for line in second.stderr.splitlines() if line.startswith("import time:")}
    assert "valarmind_tui" in imported and "litellm" not in imported
    assert daemon_pid(runtime) == pid  # the same daemon served it
    alone = ask(git_repo, fake_model, daemon_on(runtime), "--no-daemon")
    assert alone.returncode == 0, alone.stderr
    assert first.stdout == second.stdout == alone.stdout == "Hi there, twice.\n"
    assert len(fake_model.requests) == 3
    assert fake_model.requests[0]["messages"] == fake_model.requests[1]["messages"]


def test_runs_at_the_same_time_share_one_daemon(git_repo: Path, fake_model: Any,
                                                runtime: Path) -> None:
    """Three runs at once on a warm daemon: each gets its own answer, one daemon serves all."""
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="warm"),
                      *[ScriptedTurn(text=f"Answer {n}.", chunk_delay_s=0.05) for n in range(3)])
    assert ask(git_repo, fake_model, daemon_on(runtime)).returncode == 0
    pid = daemon_pid(runtime)
    runs = [subprocess.Popen(
        [sys.executable, "-m", "valarmind_tui", "-p", "say hi", *model_flags(fake_model)],
        cwd=git_repo, env={**os.environ, **ENV, **daemon_on(runtime)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    answers = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], answers
    assert sorted(out for out, _ in answers) == [f"Answer {n}.\n" for n in range(3)]
    assert daemon_pid(runtime) == pid


def test_the_config_key_turns_it_off(git_repo: Path, fake_model: Any, runtime: Path) -> None:
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="Hello."))
    env = {**daemon_on(runtime), "VALARMIND_MODEL_DAEMON": "0"}
    out = ask(git_repo, fake_model, env)
    assert out.returncode == 0 and out.stdout == "Hello.\n", out.stderr
    assert not (runtime / "valarmind").exists()


def test_the_daemon_leaves_after_its_idle_time(git_repo: Path, fake_model: Any,
                                               runtime: Path) -> None:
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="Hello."))
    out = ask(git_repo, fake_model, daemon_on(runtime, idle_s=1))
    assert out.returncode == 0, out.stderr
    pid = daemon_pid(runtime)
    assert pid is not None
    assert wait_gone(pid, 30), "the daemon is still there long after its idle time"


def test_a_killed_daemon_is_replaced(git_repo: Path, fake_model: Any, runtime: Path) -> None:
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="One."), ScriptedTurn(text="Two."))
    assert ask(git_repo, fake_model, daemon_on(runtime)).returncode == 0
    pid = daemon_pid(runtime)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid, 10)
    out = ask(git_repo, fake_model, daemon_on(runtime))
    assert out.returncode == 0 and out.stdout == "Two.\n", out.stderr
    new = daemon_pid(runtime)
    assert new is not None and new != pid


def test_a_daemon_killed_mid_answer_fails_that_run_plainly(
        git_repo: Path, fake_model: Any, runtime: Path) -> None:
    """Half an answer came, then the daemon died: the run says so (exit 1, no traceback, no
    half answer on stdout), and the next run gets a new daemon."""
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="warm"),
                      ScriptedTurn(text="Some words, then", fault="stall_mid", stall_s=30),
                      ScriptedTurn(text="After."))
    assert ask(git_repo, fake_model, daemon_on(runtime)).returncode == 0
    pid = daemon_pid(runtime)
    assert pid is not None
    run = subprocess.Popen(
        [sys.executable, "-m", "valarmind_tui", "-p", "say hi", *model_flags(fake_model)],
        cwd=git_repo, env={**os.environ, **ENV, **daemon_on(runtime)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(fake_model.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # the words before the stall reach the run
    os.kill(pid, signal.SIGKILL)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 1, (out, err)
    assert "the model daemon stopped" in err and "Traceback" not in err
    assert out == ""
    after = ask(git_repo, fake_model, daemon_on(runtime))
    assert after.returncode == 0 and after.stdout == "After.\n", after.stderr
    assert daemon_pid(runtime) not in (None, pid)


# -- errors through the daemon, as without it (tests/test_headless_stream_faults.py) ---------


@pytest.fixture(scope="module")
def module_daemon_runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The runtime folder of the daemon the error tests share: the first run starts it, the
    next ones are served warm (a user's daemon serves their runs one after another)."""
    folder = runtime_folder(tmp_path_factory.mktemp("module-daemon"))
    with daemons_ended(folder):
        yield folder


@pytest.fixture
def faults_through_daemon(monkeypatch: pytest.MonkeyPatch, module_daemon_runtime: Path) -> None:
    for name, value in daemon_on(module_daemon_runtime).items():
        monkeypatch.setitem(faults.ENV, name, value)


@pytest.mark.usefixtures("faults_through_daemon")
def test_a_cut_stream_fails_the_run(git_repo: Path, fake_model: Any) -> None:
    faults.test_a_cut_stream_fails_the_run(git_repo, fake_model)


@pytest.mark.usefixtures("faults_through_daemon")
def test_an_empty_stream_is_asked_again_then_answered(git_repo: Path, fake_model: Any) -> None:
    faults.test_an_empty_stream_is_asked_again_then_answered(git_repo, fake_model)


@pytest.mark.usefixtures("faults_through_daemon")
def test_a_stalled_stream_is_reported_within_its_deadline(git_repo: Path,
                                                          fake_model: Any) -> None:
    faults.test_a_stalled_stream_is_reported_within_its_deadline(git_repo, fake_model)


def test_an_auth_failure_reads_the_same_with_and_without_it(
        git_repo: Path, fake_model: Any, module_daemon_runtime: Path) -> None:
    configure_key(git_repo)
    refused = ScriptedTurn(status=401, error="invalid api key")
    fake_model.script(refused, refused)
    through = ask(git_repo, fake_model, daemon_on(module_daemon_runtime))
    alone = ask(git_repo, fake_model, {}, "--no-daemon")
    assert through.returncode == alone.returncode == 1
    assert through.stderr == alone.stderr and "invalid api key" in through.stderr
    assert "sk-test" not in through.stderr
