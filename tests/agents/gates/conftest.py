"""Scripted turns shared by the gate flows: a code change to two files, then the gates."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import stack  # noqa: F401 - the orchestrator stack fixture
from tests.fakes.model_server import ScriptedTurn

MAKE_OK = "test:\n\t@echo tests-ran\n"
MAKE_FAILS = "test:\n\t@echo '1 failed'; exit 1\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def as_json(data: dict[str, Any]) -> str:
    return json.dumps(data)


def commit_all(repo: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "more"],
                   cwd=repo, check=True)


@pytest.fixture
def make_repo(git_repo: Path):  # noqa: ANN201
    """make_repo(makefile) -> the repo with that Makefile committed (`make test` detected)."""

    def make(makefile: str = MAKE_OK) -> Path:
        (git_repo / "Makefile").write_text(makefile)
        commit_all(git_repo)
        return git_repo

    return make


def code_change() -> list[ScriptedTurn]:
    """The orchestrator delegates to the code agent, which changes two files (gates required)."""
    return [
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="add farewell")]),
        ScriptedTurn(tool_calls=[call("write_file", path="util.py",
                                      content="def farewell(name):\n    return 'Bye ' + name\n")]),
        ScriptedTurn(tool_calls=[call("edit_file", path="app.py", old_string="def greet(name):",
                                      new_string="from util import farewell\n\n\n"
                                                 "def greet(name):")]),
        ScriptedTurn(text=as_json({"summary": "added farewell", "files_created": [
            {"path": "util.py"}], "files_modified": [{"path": "app.py"}]})),
    ]


APPROVED = ScriptedTurn(text=as_json({"files_reviewed": ["app.py", "util.py"], "findings": [],
                                      "approved": True, "summary": "fine"}))


def green_test_run(command: str = "make test") -> list[ScriptedTurn]:
    """The test agent the gates start (the project has a test command): runs it, says green."""
    return [ScriptedTurn(tool_calls=[call("bash", command=command)]),
            ScriptedTurn(text=as_json({"command": command, "passed": True, "total": 1,
                                       "passed_count": 1}))]


def qa_claims_passed(command: str = "make test") -> ScriptedTurn:
    return ScriptedTurn(text=as_json({"passed": True, "summary": "all green", "checks": [
        {"name": "test", "command": command, "passed": True}]}))
