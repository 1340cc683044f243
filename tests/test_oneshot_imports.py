"""What a warm one-shot (`valarmind -p`, served by the model daemon) imports, and that it stays
warm where the harness runs it: a fresh HOME without XDG_RUNTIME_DIR (the socket then lives in
the data dir). The figures are benchmarks/oneshot_bench.py's; these guard the modules a one-shot
that runs no command does not need (docs/speed.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.daemon_help import daemons_ended, daemons_ended_in, greeting, runtime_folder
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import model_flags, valarmind

NOT_FOR_A_ONE_SHOT = (
    "litellm",  # the daemon's
    "pydantic_settings",  # only when a VALARMIND_* variable names a setting
    "valarmind_tui.agents.goal",  # /goal and --goal
    "valarmind_tui.agents.review",  # /review, /commit's review
    "valarmind_tui.worktrees",  # /worktree, /fork, --worktree
    "valarmind_tui.setup.scan",  # /setup, valarmind setup
)
"""Modules (and their packages) a warm `-p "say hi"` must not import."""


@pytest.fixture
def daemon_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon and no language servers set in the person's config, not by VALARMIND_*
    variables (which would import pydantic-settings to read them)."""
    monkeypatch.delenv("VALARMIND_MODEL_DAEMON", raising=False)
    monkeypatch.delenv("VALARMIND_LSP__ENABLED", raising=False)
    write_user_config('api_key_env = "FAKE_API_KEY"\nmodel_daemon = true\n'
                      "model_daemon_idle_s = 60\n\n[lsp]\nenabled = false\n")


def imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:")}


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules for name in NOT_FOR_A_ONE_SHOT
                  if m == name or m.startswith(name + "."))


def ask(repo: Path, fake_model: Any, env: dict[str, str]) -> Any:
    return valarmind("-p", "say hi", *model_flags(fake_model), cwd=repo,
                     env={"FAKE_API_KEY": "sk-test", **env})


@pytest.mark.usefixtures("daemon_config")
def test_a_warm_one_shot_imports_none_of_what_it_does_not_use(
        git_repo: Path, fake_model: Any, tmp_path: Path) -> None:
    runtime = runtime_folder(tmp_path)
    fake_model.script(*[ScriptedTurn(text="Hi!")] * 2)
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    with daemons_ended(runtime):
        assert ask(git_repo, fake_model, env).returncode == 0  # starts the daemon
        warm = ask(git_repo, fake_model, {**env, "PYTHONPROFILEIMPORTTIME": "1"})
    assert warm.returncode == 0, warm.stderr[-2000:]
    assert warm.stdout == "Hi!\n"
    modules = imported(warm.stderr)
    assert "valarmind_tui.session.session" in modules  # the same Session as every face
    assert heavy(modules) == []


@pytest.mark.usefixtures("daemon_config")
def test_a_fresh_home_without_a_runtime_dir_finds_its_daemon_warm(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The held-out harness gives each tool a fresh HOME and no XDG_RUNTIME_DIR: the socket is
    in the data dir, and the second run is served by the daemon the first started."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)  # the data dir under HOME, as there
    sock = Path(os.environ["HOME"]) / ".local/share/valarmind/run/model.sock"
    fake_model.script(*[ScriptedTurn(text="Hi!")] * 2)
    with daemons_ended_in(sock.parent):
        first = ask(git_repo, fake_model, {})
        assert first.returncode == 0, first.stderr[-2000:]
        answer = greeting(sock)
        assert answer is not None, "no daemon answers in the data dir after the first run"
        second = ask(git_repo, fake_model, {"PYTHONPROFILEIMPORTTIME": "1"})
        assert second.returncode == 0, second.stderr[-2000:]
        assert greeting(sock) == answer  # the same daemon served it
    assert second.stdout == "Hi!\n"
    assert "litellm" not in {m.split(".")[0] for m in imported(second.stderr)}
