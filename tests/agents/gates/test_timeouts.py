"""A specialist's clock stops while a person reads an approval; an approval left open past the
agent's maximum is denied as a timeout, its dialog closed, and the call says "timeout"."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.agents.gates.conftest import call, commit_all
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.registry import parse_agent_file
from valarmind_tui.core.events import ApprovalRequested, ApprovalResolved, ToolCallFinished
from valarmind_tui.providers.litellm_call import load_litellm
from valarmind_tui.safety.gate.approval import ApprovalAnswer, PolicyApprover
from valarmind_tui.session.session import InteractiveApprover

SLOW_AGENT = """---
name: slowpoke
description: Runs commands slowly.
tools: [bash]
permissions: {read: true, execute: true}
timeout: {default: 5, max: 10}
max_turns: 5
---
You run the commands you are asked to.
"""


async def _approval(events: list[Any], count: int) -> ApprovalRequested:
    for _ in range(200):
        asked = [e for e in events if isinstance(e, ApprovalRequested)]
        if len(asked) >= count:
            return asked[count - 1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no approval was requested: {events}")


async def test_approval_time_does_not_count_and_an_open_one_times_out(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / ".valarmind" / "agents").mkdir(parents=True)
    (git_repo / ".valarmind" / "agents" / "slowpoke.md").write_text(SLOW_AGENT)
    commit_all(git_repo)
    s = stack(git_repo, approver=PolicyApprover())
    approver = InteractiveApprover(s.bus)
    s.gate.approver = approver
    fake_model.script(
        ScriptedTurn(text="warm"),  # the first request through LiteLLM is slow: not timed here
        ScriptedTurn(tool_calls=[call("bash", command="touch first")]),
        ScriptedTurn(tool_calls=[call("bash", command="touch second")]),
        ScriptedTurn(text="never reached"),
    )
    load_litellm()
    warm = await s.orchestrator.delegator.run("slowpoke", "say warm", timeout_s=60)
    assert warm.status == "done"
    running = asyncio.create_task(s.orchestrator.delegator.run("slowpoke", "touch two files"))
    first = await _approval(s.events, 1)
    await asyncio.sleep(6)  # longer than the 5 s limit: the person is reading
    assert not running.done()
    assert approver.answer(first.request_id, ApprovalAnswer("allow_once"))
    second = await _approval(s.events, 2)  # then left open past the agent's 10 s maximum
    result = await asyncio.wait_for(running, timeout=20)

    assert result.status == "timeout"
    assert (git_repo / "first").exists() and not (git_repo / "second").exists()
    resolved = [e for e in s.events if isinstance(e, ApprovalResolved)]
    assert [(e.request_id, e.decision, e.feedback) for e in resolved] == [
        (first.request_id, "allow_once", None), (second.request_id, "deny", "timeout")]
    bash = [(e.status, e.output) for e in s.events
            if isinstance(e, ToolCallFinished) and e.name == "bash"]
    assert bash[0][0] == "ok"
    assert bash[1] == ("timeout", "stopped: the agent's time limit ran out")
    assert "cancelled by the user" not in str(bash)


QUICK_AGENT = SLOW_AGENT.replace("name: slowpoke", "name: quick").replace(
    "timeout: {default: 5, max: 10}", "timeout: {default: 1, max: 2}")


async def test_delegate_passes_a_timeout_capped_at_the_agents_maximum(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / ".valarmind" / "agents").mkdir(parents=True)
    (git_repo / ".valarmind" / "agents" / "slowpoke.md").write_text(SLOW_AGENT)
    (git_repo / ".valarmind" / "agents" / "quick.md").write_text(QUICK_AGENT)
    commit_all(git_repo)
    s = stack(git_repo)
    slow_text = ScriptedTurn(text="z" * 400, chunk_size=4, chunk_delay_s=0.1)  # ~10 s to stream
    fake_model.script(
        ScriptedTurn(text="warm"),
        ScriptedTurn(tool_calls=[call("delegate", agent="slowpoke", task="talk", timeout_s=1)]),
        slow_text,
        ScriptedTurn(text="the orchestrator goes on"),
    )
    load_litellm()
    assert (await s.orchestrator.run("warm up")).status == "done"  # not timed: LiteLLM warms
    outcome = await s.orchestrator.run("ask slowpoke, briefly")
    assert outcome.status == "done"
    slowpoke = s.orchestrator.delegator.results[-1]
    assert slowpoke.status == "timeout" and slowpoke.elapsed_s < 4  # its own default is 5 s
    tool = [m for m in outcome.messages if m.get("role") == "tool"][0]
    assert "The slowpoke agent timed out" in tool["content"]

    # a timeout above the agent's maximum is held to it (quick: default 1 s, max 2 s)
    fake_model.script(slow_text)
    quick = await s.orchestrator.delegator.run("quick", "talk", timeout_s=60)
    assert quick.status == "timeout" and quick.problem == "exceeded 2s"


async def test_the_orchestrators_own_limit_ends_the_prompt_as_timeout(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    from dataclasses import replace

    s = stack(git_repo, approver=PolicyApprover())
    approver = InteractiveApprover(s.bus)
    s.gate.approver = approver
    fake_model.script(ScriptedTurn(text="warm"))
    load_litellm()
    assert (await s.orchestrator.run("warm up")).status == "done"
    s.orchestrator.spec = replace(s.orchestrator.spec, timeout_s=1, max_timeout_s=3)

    fake_model.script(ScriptedTurn(text="y" * 400, chunk_size=4, chunk_delay_s=0.1))
    slow = await s.orchestrator.run("say a lot")
    assert slow.status == "timeout" and "time limit ran out" in slow.text

    # a specialist's approval left open: the clock stops, then the orchestrator's 3 s maximum
    # ends the prompt, and the approval is denied as a timeout
    (git_repo / ".valarmind" / "agents").mkdir(parents=True)
    (git_repo / ".valarmind" / "agents" / "slowpoke.md").write_text(SLOW_AGENT)
    s.orchestrator.registry.add(parse_agent_file(
        git_repo / ".valarmind" / "agents" / "slowpoke.md", source="project"))
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="slowpoke", task="touch late")]),
        ScriptedTurn(tool_calls=[call("bash", command="touch late")]),
    )
    outcome = await asyncio.wait_for(s.orchestrator.run("touch a file"), timeout=30)
    assert outcome.status == "timeout"
    assert not (git_repo / "late").exists()
    asked = await _approval(s.events, 1)
    resolved = [e for e in s.events if isinstance(e, ApprovalResolved)]
    assert [(e.request_id, e.decision, e.feedback) for e in resolved] == [
        (asked.request_id, "deny", "timeout")]
    finished = {e.name: (e.status, e.output) for e in s.events if isinstance(e, ToolCallFinished)}
    assert finished["bash"] == ("timeout", "stopped: the agent's time limit ran out")
    assert finished["delegate"][0] == "timeout"
    assert "cancelled by the user" not in str(finished)
