"""Real git repositories for the commit chain, LiteLLM against the fake model server."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.context.project_commands import commands_of, detect_commands
from valarmind_tui.core.events import CommitStepFinished, Event
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
MAKE_OK = "lint:\n\t@echo lint-clean\ntest:\n\t@echo tests-ran\n"
MAKE_LINT_FAILS = ("lint:\n\t@echo 'app.py:2:5: F821 undefined name greet2'; exit 3\n"
                   "test:\n\t@echo tests-ran\n")
FAREWELL = "def farewell(name):\n    return 'Bye ' + name\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True, env={**os.environ, **IDENTITY}).stdout


def head_subject(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%B").strip()


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def approved(findings: list[dict[str, Any]] | None = None) -> ScriptedTurn:
    return ScriptedTurn(text=json.dumps({"files_reviewed": ["util.py"], "findings": findings or [],
                                         "approved": True, "summary": "fine"}))


def declined() -> ScriptedTurn:
    return ScriptedTurn(text=json.dumps({
        "files_reviewed": ["util.py"], "approved": False, "summary": "farewell is wrong",
        "findings": [{"severity": "major", "file": "util.py", "line": 2,
                      "message": "farewell drops the comma the style guide asks for",
                      "category": "correctness", "suggested_fix": "return 'Bye, ' + name"}]}))


@dataclass
class Live:
    session: Session
    repo: Path
    events: list[Event] = field(default_factory=list)

    def steps(self) -> list[tuple[str, str]]:
        return [(e.step, e.outcome) for e in self.events if isinstance(e, CommitStepFinished)]


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The git_repo with a Makefile (`make lint`, `make test` detected) and util.py staged."""
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    (git_repo / "Makefile").write_text(MAKE_OK)
    git(git_repo, "add", "Makefile")
    git(git_repo, "commit", "-qm", "make")
    (git_repo / "util.py").write_text(FAREWELL)
    git(git_repo, "add", "util.py")
    return git_repo


@pytest.fixture
def live(repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Live]:
    """live(model=True, trusted=False) -> a headless-policy Session on `repo`."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")

    def make(*, model: bool = True, trusted: bool = False) -> Live:
        settings = (Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                             api_key_env="FAKE_API_KEY") if model else Settings())
        settings = settings.trusting_project(trusted)
        approver = PolicyApprover(project_commands=commands_of(detect_commands(repo)))
        session = build_session(settings, repo, approver=approver)
        result = Live(session, repo)
        session.bus.add_listener(result.events.append)
        return result

    return make
