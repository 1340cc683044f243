"""`valarmind commit` in a real subprocess: the JSON summary, each step's exit code and the
process exit code (headless.EXIT_CODES)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.agents.commit.conftest import IDENTITY, MAKE_LINT_FAILS, approved, git, head_subject
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import configure_key, model_flags, valarmind

ENV = {"FAKE_API_KEY": "sk-test", **IDENTITY}


def test_commit_and_push_headless(repo: Path, fake_model: Any, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    configure_key(repo)
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    out = valarmind("commit", "--push", *model_flags(fake_model), cwd=repo, env=ENV, timeout=240)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "done" and summary["exit_code"] == 0
    assert [(s["step"], s["outcome"], s["exit_code"]) for s in summary["steps"]] == [
        ("check", "passed", 0), ("confirm", "passed", 0), ("message", "passed", 0),
        ("commit", "passed", 0), ("push", "passed", 0)]
    assert summary["message"] == head_subject(repo) == "feat: add farewell"
    assert git(remote, "log", "-1", "--format=%s", "main").strip() == "feat: add farewell"


def test_a_failing_lint_exits_6_with_the_step_and_its_output(repo: Path, fake_model: Any) -> None:
    (repo / "Makefile").write_text(MAKE_LINT_FAILS)
    git(repo, "add", "Makefile")
    configure_key(repo)
    out = valarmind("commit", *model_flags(fake_model), cwd=repo, env=ENV, timeout=240)
    assert out.returncode == 6, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "rejected"
    [check] = summary["steps"]
    assert (check["step"], check["outcome"], check["exit_code"]) == ("check", "failed", 2)
    assert "F821 undefined name greet2" in check["output"]


def test_no_model_exits_5_and_nothing_staged_exits_2(repo: Path) -> None:
    out = valarmind("commit", cwd=repo, env=IDENTITY, timeout=240)
    assert out.returncode == 5, out.stderr
    summary = json.loads(out.stdout)
    assert [(s["step"], s["outcome"]) for s in summary["steps"]] == [
        ("check", "passed"), ("confirm", "not_run")]
    git(repo, "reset", "-q")
    out = valarmind("commit", "--no-review", cwd=repo, env=IDENTITY, timeout=240)
    assert out.returncode == 2
    assert out.stdout == ""
    assert "nothing staged" in out.stderr
