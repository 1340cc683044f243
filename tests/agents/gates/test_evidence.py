"""Gates judge from evidence: the specialists' own bash calls and exit codes, and strict result
schemas. Scripted model turns through the fake server, real tools, real gate."""

from __future__ import annotations

from typing import Any

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
from valarmind_tui.core.events import AgentSpawned, ToolCallFinished
from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover


async def test_qa_whose_command_was_denied_is_not_run_and_the_prompt_unverified(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    repo = make_repo(MAKE_OK)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        qa_claims_passed(),  # a claim the evidence does not back
    )
    s = stack(repo, approver=PolicyApprover(allow_writes=True), mode=PermissionMode.ACCEPT_EDITS)
    outcome = await s.orchestrator.run("add a farewell function")

    bash = [e for e in s.of(ToolCallFinished) if e.name == "bash"]
    assert [(e.status, e.exit_code) for e in bash] == [("denied", None), ("denied", None)]
    assert outcome.status == "unverified"
    report = s.orchestrator.gates
    assert [(g["name"], g["verdict"]) for g in report.gates()] == [
        ("review", "passed"), ("test", "not_run"), ("qa", "not_run")]
    assert report.gates()[1]["evidence"] == [
        "`make test` was denied (the test agent reported it passed)"]
    assert "`make test` was denied (QA reported it passed)" in report.gates()[2]["evidence"][0]
    assert "## Quality gates (NOT verified)" in outcome.text
    assert "QA: passed" not in outcome.text and "- QA: not run" in outcome.text
    assert fake_model.pending == 0


async def test_tests_that_fail_reject_the_delivery_whatever_the_agents_claim(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    repo = make_repo(MAKE_FAILS)
    fake_model.script(
        *code_change(),
        ScriptedTurn(tool_calls=[call("delegate", agent="test", task="run the tests")]),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        ScriptedTurn(text=as_json({"command": "make test", "passed": True, "total": 3,
                                   "passed_count": 3})),
        ScriptedTurn(text="Added farewell; tests pass."),
        APPROVED,
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        qa_claims_passed(),
    )
    s = stack(repo)
    outcome = await s.orchestrator.run("add a farewell function")

    bash = [e for e in s.of(ToolCallFinished) if e.name == "bash"]
    assert [(e.status, e.exit_code) for e in bash] == [("error", 2), ("error", 2)]
    assert outcome.status == "rejected"
    gates = {g["name"]: g for g in s.orchestrator.gates.gates()}
    assert gates["test"]["verdict"] == "failed"
    assert gates["test"]["evidence"] == ["`make test` exited 2"]
    assert gates["qa"]["verdict"] == "failed"
    assert "## Quality gates (REJECTED)" in outcome.text
    assert fake_model.pending == 0


async def test_a_review_answer_of_empty_braces_fails_its_gate(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    repo = make_repo(MAKE_OK)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        ScriptedTurn(text="{}"),
        ScriptedTurn(text="{}"),  # the repair request gets the same
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        qa_claims_passed(),
    )
    s = stack(repo)
    outcome = await s.orchestrator.run("add a farewell function")

    assert outcome.status == "rejected"
    gates = {g["name"]: g for g in s.orchestrator.gates.gates()}
    assert gates["review"]["verdict"] == "failed"
    assert "invalid ReviewResult" in gates["review"]["evidence"][0]
    assert "approved: Field required" in gates["review"]["evidence"][0]
    assert "findings: Field required" in gates["review"]["evidence"][0]
    assert gates["test"]["verdict"] == gates["qa"]["verdict"] == "passed"
    assert gates["qa"]["evidence"] == ["test: passed (`make test` exited 0)"]


async def test_every_gate_passed_on_evidence_is_done(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    repo = make_repo(MAKE_OK)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        qa_claims_passed(),
    )
    s = stack(repo)
    outcome = await s.orchestrator.run("add a farewell function")
    assert outcome.status == "done"
    assert "## Quality gates (passed)" in outcome.text
    assert [e.name for e in s.of(AgentSpawned)] == ["code", "review", "test", "qa"]
    # the report is the last message of the conversation, not only text on screen
    assert outcome.messages[-1] == {"role": "assistant",
                                    "content": s.orchestrator.gates.render()}


async def test_a_check_qa_never_ran_is_not_run_even_when_qa_rejects(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    """QA that ran nothing and says `passed: false` could not verify: unverified, not
    rejected (the detected command it left out is listed as never run)."""
    repo = make_repo(MAKE_OK)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(text=as_json({"passed": False, "checks": [], "blockers": ["no tools"]})),
    )
    s = stack(repo)
    outcome = await s.orchestrator.run("add a farewell function")
    assert outcome.status == "unverified"
    qa = s.orchestrator.gates.gates()[-1]
    assert qa["evidence"][0] == "make test: not run (`make test` was never run)"
