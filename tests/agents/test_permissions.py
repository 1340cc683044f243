"""Specialists' permissions are enforced by the gate whatever the model asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agents.conftest import as_json, call, commit_all
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.verification.policy import gates_required, is_risk_path
from valarmind_tui.core.events import ToolCallFinished


async def test_test_agent_writes_only_tests_and_qa_runs_only_detected_commands(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / "Makefile").write_text("test:\n\t@echo tests-ran\n")
    commit_all(git_repo)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("write_file", path="app.py", content="hacked\n")]),
        ScriptedTurn(tool_calls=[call("write_file", path="tests/test_app.py",
                                      content="def test_ok():\n    assert True\n")]),
        ScriptedTurn(text=as_json({"passed": True, "command": "make test"})),
        ScriptedTurn(tool_calls=[call("bash", command="rm -rf tests")]),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        ScriptedTurn(text=as_json({"passed": True, "summary": "ok", "checks": [
            {"name": "test", "command": "make test", "passed": True}]})),
    )
    s = stack(git_repo)
    tester = await s.orchestrator.delegator.run("test", "add a test for greet")
    qa = await s.orchestrator.delegator.run("qa", "verify")
    assert tester.valid and qa.valid
    calls = [(e.name, e.status) for e in s.of(ToolCallFinished)]
    assert calls == [("write_file", "denied"), ("write_file", "ok"), ("bash", "denied"),
                     ("bash", "ok")]
    outputs = [e.output for e in s.of(ToolCallFinished)]
    assert "may only write to" in outputs[0] and "app.py is not among them" in outputs[0]
    assert "may run only these commands: make test" in outputs[2]
    assert "tests-ran" in outputs[3]
    assert (git_repo / "app.py").read_text().startswith("def greet")
    assert (git_repo / "tests" / "test_app.py").is_file()


def test_risk_code_and_multi_file_changes_require_gates() -> None:
    assert gates_required(["app.py"]) == []
    assert gates_required(["a.py", "b.py"]) == ["the change touches 2 files"]
    assert gates_required(["src/auth/login.py"]) == ["risk code: src/auth/login.py"]
    for path in ("payments/stripe_client.py", "app/security.py", "config/secrets.yaml",
                 "lib/jwt_tokens.ts", ".env", "billing.go"):
        assert is_risk_path(path), path
    for path in ("app.py", "src/author_list.py", "docs/readme.md", "tokenizer_notes.txt"):
        assert not is_risk_path(path), path
