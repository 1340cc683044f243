"""A specialist's clock stops while a person reads an approval; an approval left open past the
agent's maximum is denied as a timeout, its dialog closed, and the call says "timeout"."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.gates.conftest import call, commit_all
from valarmind_tui.events import ApprovalRequested, ApprovalResolved, ToolCallFinished
from valarmind_tui.providers.litellm_provider import load_litellm
from valarmind_tui.safety.approval import ApprovalAnswer, PolicyApprover
from valarmind_tui.session import InteractiveApprover

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
