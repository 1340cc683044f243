"""What a specialist inherits of the session's services: never the plan switch or the task list,
and a delegator only when its spec may spawn, whatever tools its spec lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agents.conftest import as_json, call
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.events import AgentSpawned, ModeChanged, TaskListChanged, ToolCallFinished
from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest, PermissionMode

SPECIALIST = """---
name: {name}
description: every tool, read-only permissions
tools: ["*"]
permissions: {{read: true, write: false, execute: false, web: false, spawn: {spawn}}}
---
You plan.
"""


class RecordingApprover:
    """Allows everything and remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer("allow_once")


def add_specialist(root: Path, name: str, *, spawn: bool) -> None:
    agents = root / ".valarmind" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    text = SPECIALIST.format(name=name, spawn=str(spawn).lower())
    (agents / f"{name}.md").write_text(text)


def finished_by(s: Any, prefix: str) -> dict[str, ToolCallFinished]:
    return {e.name: e for e in s.of(ToolCallFinished) if e.agent_id.startswith(prefix)}


async def test_a_specialist_cannot_leave_plan_mode_or_touch_the_task_list(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    add_specialist(git_repo, "planner", spawn=True)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="planner", task="plan the rename")]),
        ScriptedTurn(tool_calls=[call("exit_plan_mode", plan="1. rename greet")]),
        ScriptedTurn(tool_calls=[call("task_create", title="rename greet")]),
        ScriptedTurn(tool_calls=[call("delegate", agent="search", task="where is greet?")]),
        ScriptedTurn(text=as_json({"findings": [{"file": "app.py", "line": 1}],
                                   "summary": "greet is in app.py"})),
        ScriptedTurn(text="Plan: rename greet in app.py."),
        ScriptedTurn(text="Here is the plan."),
    )
    approver = RecordingApprover()
    s = stack(git_repo, approver=approver, mode=PermissionMode.PLAN)
    outcome = await s.orchestrator.run("plan a rename of greet")
    assert outcome.status == "done"
    calls = finished_by(s, "planner-")
    exit_plan = calls["exit_plan_mode"]
    assert exit_plan.status == "error"
    assert "only the main agent can leave plan mode" in exit_plan.output
    assert [r.tool for r in approver.asked] == []  # nobody was asked to approve its plan
    assert s.gate.mode is PermissionMode.PLAN and s.of(ModeChanged) == []
    assert calls["task_create"].status == "error"
    assert "no task list" in calls["task_create"].output
    assert s.of(TaskListChanged) == [] and s.orchestrator.tasks.items() == ()
    # a spawning specialist keeps its delegator: its read-only search ran
    assert calls["delegate"].status == "ok" and "app.py" in calls["delegate"].output


async def test_a_specialist_that_may_not_spawn_has_no_delegate(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    add_specialist(git_repo, "scout", spawn=False)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="scout", task="look around")]),
        ScriptedTurn(tool_calls=[call("delegate", agent="search", task="where is greet?")]),
        ScriptedTurn(text="I could not delegate."),
        ScriptedTurn(text="Done."),
    )
    s = stack(git_repo, approver=RecordingApprover())
    outcome = await s.orchestrator.run("look around")
    assert outcome.status == "done"
    delegate = finished_by(s, "scout-")["delegate"]
    assert delegate.status == "error" and "Unknown tool 'delegate'" in delegate.output
    assert [e.name for e in s.of(AgentSpawned)] == ["scout"]  # no search started by it


def test_specialists_are_offered_only_the_tools_their_spec_lists(
    git_repo: Path, stack: Any
) -> None:
    # The delegate tool once listed the specialists as the agents it is offered to (the field
    # MCP and plugin tools use), so every specialist got it and the gate skipped its spawn check.
    s = stack(git_repo)
    for spec in s.orchestrator.registry.specialists():
        offered = s.orchestrator.tools.for_agent(spec.name, spec.tools).names()
        assert ("delegate" in offered) == ("delegate" in spec.tools), spec.name
