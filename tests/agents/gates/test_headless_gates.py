"""`valarmind -p` in a real subprocess: the gates' verdicts decide the status, the exit code and
the JSON output, and the report stays in the stored conversation for `--resume`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.agents.gates.conftest import (
    APPROVED,
    MAKE_FAILS,
    MAKE_OK,
    as_json,
    call,
    code_change,
    green_test_run,
    qa_claims_passed,
)
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import configure_key, model_flags, valarmind
from valarmind_tui.faces.headless import EXIT_CODES

pytestmark = pytest.mark.usefixtures("warm_runs")

KEY = {"FAKE_API_KEY": "sk-test"}


def test_denied_qa_is_unverified_exit_5_with_gates_in_json(
    make_repo: Any, fake_model: Any
) -> None:
    repo = make_repo(MAKE_OK)
    configure_key(repo)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),  # headless policy: denied
        qa_claims_passed(),
    )
    out = valarmind("-p", "add farewell", "--output-format", "json", "--permission-mode",
                    "accept-edits", *model_flags(fake_model), cwd=repo, env=KEY)
    assert out.returncode == EXIT_CODES["unverified"] == 5, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "unverified"
    assert [(g["name"], g["verdict"]) for g in summary["gates"]] == [
        ("review", "passed"), ("test", "not_run"), ("qa", "not_run")]
    assert summary["gates"][2]["evidence"] == [
        "test: not run (`make test` was denied (QA reported it passed))"]
    assert "QA: passed" not in summary["result"]
    assert fake_model.pending == 0


def test_rejecting_qa_is_rejected_exit_6(make_repo: Any, fake_model: Any) -> None:
    repo = make_repo(MAKE_FAILS)
    configure_key(repo)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        ScriptedTurn(text=as_json({"passed": False, "blockers": ["1 test fails"], "checks": [
            {"name": "test", "command": "make test", "passed": False}]})),
    )
    out = valarmind("-p", "add farewell", "--permission-mode", "bypass",
                    *model_flags(fake_model), cwd=repo, env=KEY)
    assert out.returncode == EXIT_CODES["rejected"] == 6, out.stderr
    assert "## Quality gates (REJECTED)" in out.stdout
    assert "  - test: FAILED (`make test` exited 2)" in out.stdout
    assert "- Tests: failed (`make test` exited 2)" in out.stdout  # whatever the agent said
    assert "blocker: 1 test fails" in out.stdout


def test_resumed_conversation_holds_the_gate_report(make_repo: Any, fake_model: Any) -> None:
    repo = make_repo(MAKE_OK)
    configure_key(repo)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        qa_claims_passed(),
        ScriptedTurn(text="QA could not run make test: it was denied."),
    )
    first = valarmind("-p", "add farewell", "--output-format", "json", "--permission-mode",
                      "accept-edits", *model_flags(fake_model), cwd=repo, env=KEY)
    assert first.returncode == 5, first.stderr
    second = valarmind("-p", "what did QA find?", "--resume", *model_flags(fake_model),
                       cwd=repo, env=KEY)
    assert second.returncode == 0, second.stderr
    messages = fake_model.requests[-1]["messages"]
    report = [m for m in messages if m["role"] == "assistant"
              and "## Quality gates (NOT verified)" in str(m.get("content"))]
    assert len(report) == 1
    assert "`make test` was denied" in str(report[0]["content"])
    assert messages[-1] == {"role": "user", "content": "what did QA find?"}
