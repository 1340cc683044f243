"""Plan mode: only read tools run; exit_plan_mode asks the person; approve → default mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agents.conftest import call
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.loop import AgentLoop, LoopDeps
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import ApprovalRequested, Event, ModeChanged, ToolCallFinished
from valarmind_tui.safety.gate.approval import ApprovalAnswer, PermissionMode, PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.session.session import InteractiveApprover
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools

# An agent with every permission: in plan mode the mode alone must stop it.
GENERAL_AGENT = AgentSpec(name="general", description="all permissions",
                          system_prompt="You are a coding agent.",
                          permissions=AgentPermissions.full())


async def test_plan_mode_refuses_write_and_bash_and_changes_nothing(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[call("write_file", path="app.py", content="print('gone')\n")]),
        ScriptedTurn(tool_calls=[call("bash", command="touch made-by-bash && rm README.md")]),
        ScriptedTurn(tool_calls=[call("read_file", path="app.py")]),
        ScriptedTurn(text="Plan: 1. rename greet."),
    )
    s = stack(git_repo)  # for the provider and settings; the main agent has every permission
    bus = EventBus()
    events: list[Event] = []
    bus.add_listener(events.append)
    gate = PermissionGate(git_repo, PolicyApprover(allow_writes=True, allow_execute=True),
                          mode=PermissionMode.PLAN, bus=bus)
    deps = LoopDeps(provider=s.orchestrator.deps.provider, tools=builtin_tools(), gate=gate,
                    bus=bus, ctx=ToolContext(project_root=git_repo))
    before = {p.name: p.read_bytes() for p in git_repo.iterdir() if p.is_file()}
    outcome = await AgentLoop(GENERAL_AGENT, deps).run("rename greet")
    assert outcome.status == "done"
    finished = [(e.name, e.status) for e in events if isinstance(e, ToolCallFinished)]
    assert finished == [("write_file", "denied"), ("bash", "denied"), ("read_file", "ok")]
    assert all("Plan mode is on" in e.output for e in events
               if isinstance(e, ToolCallFinished) and e.status == "denied")
    after = {p.name: p.read_bytes() for p in git_repo.iterdir() if p.is_file()}
    assert after == before


async def test_plan_is_rejected_with_feedback_then_approved_and_executed(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    s = stack(git_repo, mode=PermissionMode.PLAN, approver=InteractiveApprover)
    person = s.gate.approver
    assert isinstance(person, InteractiveApprover)
    answers = [ApprovalAnswer("deny", feedback="also update the README"),
               ApprovalAnswer("allow_once"), ApprovalAnswer("allow_once")]

    def answer(event: Event) -> None:
        if isinstance(event, ApprovalRequested):
            person.answer(event.request_id, answers.pop(0))

    s.bus.add_listener(answer)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="rename greet")]),
        ScriptedTurn(tool_calls=[call("exit_plan_mode", plan="1. rename greet to hello")]),
        ScriptedTurn(tool_calls=[call("exit_plan_mode",
                                      plan="1. rename greet to hello\n2. update README")]),
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="rename greet to hello")]),
        ScriptedTurn(tool_calls=[call("edit_file", path="app.py", old_string="def greet",
                                      new_string="def hello")]),
        ScriptedTurn(text='{"summary": "renamed", "task": "rename"}'),
        ScriptedTurn(text="Renamed greet to hello."),
    )
    outcome = await s.orchestrator.run("plan: rename greet")
    assert outcome.status == "done" and outcome.text == "Renamed greet to hello."
    finished = [(e.name, e.status) for e in s.of(ToolCallFinished)]
    assert finished[:3] == [("delegate", "denied"), ("exit_plan_mode", "ok"),
                            ("exit_plan_mode", "ok")]
    # the rejection's feedback reached the model, and the plan was in the approval request
    fed_back = fake_model.requests[2]["messages"][-1]["content"]
    assert "rejected the plan" in fed_back and "also update the README" in fed_back
    plans = [e.diff for e in s.of(ApprovalRequested) if e.tool == "exit_plan_mode"]
    assert plans == ["1. rename greet to hello", "1. rename greet to hello\n2. update README"]
    assert [e.mode for e in s.of(ModeChanged)] == ["default"]
    assert s.gate.mode is PermissionMode.DEFAULT
    assert "def hello" in (git_repo / "app.py").read_text()


async def test_plan_mode_delegates_read_only_specialists_only(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="rename greet")]),
        ScriptedTurn(tool_calls=[call("delegate", agent="search", task="where is greet?")]),
        ScriptedTurn(text='{"findings": [{"file": "app.py", "line": 1, "snippet": "def greet"}],'
                          ' "summary": "greet is in app.py"}'),
        ScriptedTurn(text="Plan: rename greet in app.py."),
    )
    s = stack(git_repo, mode=PermissionMode.PLAN)
    events: list[Event] = []
    s.bus.add_listener(events.append)
    before = (git_repo / "app.py").read_text()
    outcome = await s.orchestrator.run("plan a rename of greet")
    assert outcome.status == "done"
    delegated = [e for e in events if isinstance(e, ToolCallFinished) and e.name == "delegate"]
    assert delegated[0].status == "denied"
    assert "Plan mode is on" in delegated[0].output
    assert delegated[1].status == "ok"
    assert "app.py" in delegated[1].output
    assert (git_repo / "app.py").read_text() == before
