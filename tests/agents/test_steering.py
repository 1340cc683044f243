"""Steering: a message typed while the agent works reaches the model in the next request of
that same run, after the step's tool results (not after the whole prompt), said as queued then
delivered; one the run ends without is said as dropped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.steering import SteeringQueue
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import SteeringChanged
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session


async def _when(until: Any, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not until():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def _states(session: Any) -> list[tuple[str, str]]:
    return [(e.state, e.text) for e in session.seen if isinstance(e, SteeringChanged)]


async def _session(git_repo: Path, model_settings: Any) -> Any:
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    session.seen = []
    session.bus.add_listener(session.seen.append)
    return session


async def test_a_message_typed_during_a_step_reaches_the_next_request_of_the_run(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = await _session(git_repo, model_settings)
    fake_model.script(
        ScriptedTurn(text="Reading it first.", chunk_delay_s=0.05,
                     tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="Done, in French as asked."),
    )
    run = asyncio.ensure_future(session.submit("explain app.py"))
    await _when(lambda: len(fake_model.requests) == 1)
    assert session.steer("answer in French please")
    result = await run
    await session.close()
    assert result.text == "Done, in French as asked."
    assert len(fake_model.requests) == 2  # one run: the message did not wait for a new prompt
    second = fake_model.requests[1]["messages"]
    roles = [m["role"] for m in second]
    assert roles[-2:] == ["tool", "user"]  # after the step's tool result
    assert second[-1]["content"] == "answer in French please"
    assert _states(session) == [("queued", "answer in French please"),
                                ("delivered", "answer in French please")]
    assert any(m.get("content") == "answer in French please" for m in session.history)


async def test_a_message_typed_during_a_final_answer_keeps_the_run_going(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = await _session(git_repo, model_settings)
    fake_model.script(ScriptedTurn(text="Here is a long answer " * 8, chunk_delay_s=0.03),
                      ScriptedTurn(text="Shorter, then."))
    run = asyncio.ensure_future(session.submit("tell me"))
    await _when(lambda: len(fake_model.requests) == 1)
    assert session.steer("shorter please")
    result = await run
    await session.close()
    assert result.text == "Shorter, then."
    assert fake_model.requests[1]["messages"][-1] == {"role": "user",
                                                     "content": "shorter please"}


async def test_steering_is_refused_when_nothing_runs(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = await _session(git_repo, model_settings)
    assert not session.steer("hello?")
    await session.close()
    assert _states(session) == []


def test_what_the_run_ended_without_is_said_dropped_and_given_back() -> None:
    bus = EventBus()
    seen: list[Any] = []
    bus.add_listener(seen.append)
    queue = SteeringQueue(bus)
    queue.put("one")
    queue.put("two")
    assert queue.close() == ["one", "two"]
    assert queue.put("late") is None  # the run is over: a face sends it as a prompt instead
    assert [(e.state, e.text) for e in seen] == [
        ("queued", "one"), ("queued", "two"), ("dropped", "one"), ("dropped", "two")]
