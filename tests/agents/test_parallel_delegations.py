"""Delegations in parallel: two delegate calls of one turn run at once (asserted from the order
of the events, not from sleeps); writers overlap only on disjoint files and are kept to them;
approvals are asked one at a time, each naming the agent that asks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.agents.conftest import as_json, call
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import (
    AgentFinished,
    AgentSpawned,
    ApprovalRequested,
    Event,
    ToolCallFinished,
    ToolCallStarted,
)
from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest
from valarmind_tui.session.approver import InteractiveApprover

ANSWER = as_json({"summary": "ok", "query": "q"})  # a SearchResult and a CodeResult


def positions(events: list[Event]) -> dict[tuple[str, str], int]:
    return {(type(e).__name__, e.agent_id): i for i, e in enumerate(events)
            if isinstance(e, AgentSpawned | AgentFinished)}


def overlapped(pos: dict[tuple[str, str], int], a: str, b: str) -> bool:
    return max(pos["AgentSpawned", a], pos["AgentSpawned", b]) < min(
        pos["AgentFinished", a], pos["AgentFinished", b])


async def test_two_delegate_calls_in_one_turn_run_at_once(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="search", task="find greet"),
                                 call("delegate", agent="search", task="find README")]),
        ScriptedTurn(text=ANSWER, chunk_size=2, chunk_delay_s=0.01),
        ScriptedTurn(text=ANSWER, chunk_size=2, chunk_delay_s=0.01),
        ScriptedTurn(text="Both found."),
    )
    s = stack(git_repo)
    outcome = await s.orchestrator.run("find greet and the README")
    assert outcome.status == "done" and outcome.text == "Both found."
    spawned = s.of(AgentSpawned)
    assert [e.task for e in spawned] == ["find greet", "find README"]
    first, second = (e.agent_id for e in spawned)
    assert overlapped(positions(s.events), first, second)
    assert [e.at for e in spawned][1] < min(e.at for e in s.of(AgentFinished))
    # both delegate calls were open together, and answered in the order they were asked
    calls = [e for e in s.events if isinstance(e, ToolCallStarted | ToolCallFinished)
             and e.agent_id == "main"]
    assert [type(e).__name__ for e in calls] == ["ToolCallStarted", "ToolCallStarted",
                                                 "ToolCallFinished", "ToolCallFinished"]
    told = [m for m in fake_model.requests[3]["messages"] if m["role"] == "tool"]
    asked = [tc["id"] for tc in fake_model.requests[3]["messages"][-3]["tool_calls"]]
    assert [m["tool_call_id"] for m in told] == asked


async def test_writers_overlap_on_disjoint_files_and_take_turns_on_shared_ones(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(*[ScriptedTurn(text=ANSWER, chunk_size=2, chunk_delay_s=0.01)
                        for _ in range(4)])
    s = stack(git_repo)
    run = s.orchestrator.delegator.run
    apart = await asyncio.gather(run("code", "a", files=["app.py"]),
                                 run("code", "b", files=["README.md"]))
    shared = await asyncio.gather(run("code", "c", files=["app.py"]),
                                  run("code", "d", files=["./app.py"]))
    assert all(r.valid for r in (*apart, *shared))
    pos = positions(s.events)
    assert overlapped(pos, apart[0].agent_id, apart[1].agent_id)
    assert not overlapped(pos, shared[0].agent_id, shared[1].agent_id)


async def test_a_writer_is_kept_to_the_files_it_named(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[call("write_file", path="other.py", content="x = 1\n")]),
        ScriptedTurn(tool_calls=[call("write_file", path="app.py", content="x = 2\n")]),
        ScriptedTurn(text=ANSWER),
    )
    s = stack(git_repo)
    result = await s.orchestrator.delegator.run("code", "change app.py", files=["app.py"])
    assert result.valid
    assert not (git_repo / "other.py").exists() and (git_repo / "app.py").read_text() == "x = 2\n"
    refused, allowed = [e for e in s.of(ToolCallFinished) if e.name == "write_file"]
    assert refused.status == "denied" and "started to change only app.py" in refused.output
    assert allowed.status == "ok"


async def test_approvals_are_asked_one_at_a_time_naming_the_agent() -> None:
    bus = EventBus()
    asked: list[ApprovalRequested] = []
    bus.add_listener(lambda e: asked.append(e) if isinstance(e, ApprovalRequested) else None)
    approver = InteractiveApprover(bus)

    def request(agent: str) -> ApprovalRequest:
        return ApprovalRequest(request_id=f"r-{agent}", agent_id=agent, tool="bash",
                               summary="Run: make", reason="execute")

    first = asyncio.ensure_future(approver.request(request("search-1")))
    second = asyncio.ensure_future(approver.request(request("review-2")))
    while not asked:
        await asyncio.sleep(0)
    for _ in range(5):
        await asyncio.sleep(0)
    assert [e.agent_id for e in asked] == ["search-1"]  # the second waits its turn
    assert approver.answer("r-search-1", ApprovalAnswer("allow_once"))
    assert (await first).decision == "allow_once"
    while len(asked) < 2:
        await asyncio.sleep(0)
    assert asked[1].agent_id == "review-2"
    assert approver.answer("r-review-2", ApprovalAnswer("deny"))
    assert (await second).decision == "deny"
