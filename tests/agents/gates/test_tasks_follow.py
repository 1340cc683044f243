"""Tasks linked to a delegation follow it: "Review and QA" moves with the gates, not the model."""

from __future__ import annotations

from typing import Any

from tests.agents.gates.conftest import (
    APPROVED,
    MAKE_OK,
    call,
    code_change,
    green_test_run,
    qa_claims_passed,
)
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.tasks import TaskList, agents_named
from valarmind_tui.core.events import TaskItem, TaskListChanged
from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover


def _plan() -> list[ScriptedTurn]:
    return [ScriptedTurn(tool_calls=[
        call("task_create", title="Add farewell", owner="code"),
        call("task_create", title="Review and QA"),
    ])]


def _story(events: list[Any], title: str) -> list[str]:
    seen: list[str] = []
    for event in events:
        if isinstance(event, TaskListChanged):
            status = next((t.status for t in event.tasks if t.title == title), None)
            if status is not None and (not seen or seen[-1] != status):
                seen.append(status)
    return seen


async def test_review_and_qa_task_follows_the_gates_to_completed(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    repo = make_repo(MAKE_OK)
    fake_model.script(*_plan(), *code_change(), ScriptedTurn(text="Added farewell."), APPROVED,
                      *green_test_run(),
                      ScriptedTurn(tool_calls=[call("bash", command="make test")]),
                      qa_claims_passed())
    s = stack(repo)
    outcome = await s.orchestrator.run("add a farewell function")
    assert outcome.status == "done"
    tasks = {t.title: t.status for t in s.orchestrator.tasks.items()}
    assert tasks == {"Add farewell": "completed", "Review and QA": "completed"}
    # in progress while review ran, still in progress between review and QA, then completed
    assert _story(s.events, "Review and QA") == ["pending", "in_progress", "completed"]


async def test_review_and_qa_task_is_blocked_when_qa_could_not_run(
    make_repo: Any, fake_model: Any, stack: Any
) -> None:
    repo = make_repo(MAKE_OK)
    fake_model.script(*_plan(), *code_change(), ScriptedTurn(text="Added farewell."), APPROVED,
                      *green_test_run(),
                      ScriptedTurn(tool_calls=[call("bash", command="make test")]),
                      qa_claims_passed())
    s = stack(repo, approver=PolicyApprover(allow_writes=True), mode=PermissionMode.ACCEPT_EDITS)
    outcome = await s.orchestrator.run("add a farewell function")
    assert outcome.status == "unverified"
    tasks = {t.title: t.status for t in s.orchestrator.tasks.items()}
    assert tasks["Review and QA"] == "blocked"


def test_which_agents_a_task_names() -> None:
    agents = {"code", "review", "qa", "test", "search"}
    assert agents_named(TaskItem(id="t1", title="Review and QA"), agents) == {"review", "qa"}
    assert agents_named(TaskItem(id="t2", title="Run the tests"), agents) == {"test"}
    assert agents_named(TaskItem(id="t3", title="Review", owner="code"), agents) == {"code"}
    assert agents_named(TaskItem(id="t4", title="Ship it"), agents) == set()
    assert TaskList().items() == ()
