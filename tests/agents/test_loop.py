"""The agent loop through a real Session, real tools and real LiteLLM against the fake server."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.events import (
    Event,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    UsageUpdated,
)
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session, open_session


def collect(session: Session) -> list[Event]:
    events: list[Event] = []
    session.bus.add_listener(events.append)
    return events


async def test_tool_call_then_answer(git_repo: Path, fake_model: Any, model_settings: Any) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="app.py defines greet()."),
    )
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    events = collect(session)
    result = await session.submit("what is in app.py?")
    assert (result.status, result.text) == ("done", "app.py defines greet().")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.status) for e in finished] == [("read_file", "ok")]
    assert "def greet" in finished[0].output
    # the tool result went back to the model in the second request
    tool_msgs = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"]
    assert "def greet" in tool_msgs[0]["content"]
    assert any(isinstance(e, UsageUpdated) for e in events)
    assert session.totals.tokens > 0


async def test_a_turn_is_finished_when_the_model_stops_writing_before_it_is_counted(
        git_repo: Path, fake_model: Any, model_settings: Any) -> None:
    """TurnFinished comes with the model's finish reason, not after LiteLLM has counted the
    response (~300 ms for a long answer): faces draw the last words at once."""
    fake_model.script(
        ScriptedTurn(text="Reading it.", tool_calls=[
            {"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="app.py defines greet()."),
    )
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    events = collect(session)
    await session.submit("what is in app.py?")
    main = [e for e in events if e.agent_id == "main"
            and isinstance(e, TurnFinished | UsageUpdated)]
    assert [type(e).__name__ for e in main] == ["TurnFinished", "UsageUpdated"] * 2
    first, second = main[0], main[2]
    assert isinstance(first, TurnFinished) and isinstance(second, TurnFinished)
    assert (first.text, first.tool_calls, first.finish_reason) == (
        "Reading it.", 1, "tool_calls")
    assert (second.text, second.tool_calls, second.finish_reason) == (
        "app.py defines greet().", 0, "stop")


async def test_malformed_arguments_go_back_to_the_model(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": '{"path": "app.py"'}]),
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="ok"),
    )
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    events = collect(session)
    result = await session.submit("read it")
    assert result.status == "done"
    statuses = [e.status for e in events if isinstance(e, ToolCallFinished)]
    assert statuses == ["error", "ok"]
    fed_back = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"][0]
    assert "not valid JSON" in fed_back["content"]


async def test_turn_limit_marks_output_incomplete(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    call = {"name": "glob", "arguments": {"pattern": "*.py"}}
    fake_model.script(*[ScriptedTurn(text=f"step {i}", tool_calls=[call]) for i in range(3)])
    session = build_session(model_settings(git_repo, ), git_repo, approver=PolicyApprover())
    session.settings.max_turns = 3
    result = await session.submit("loop forever")
    assert result.status == "incomplete"
    assert result.text.startswith("## INCOMPLETE")
    assert "3 turns" in result.text
    assert len(fake_model.requests) == 3


async def test_cancel_keeps_partial_answer(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    fake_model.script(ScriptedTurn(text="partial answer " * 40, chunk_delay_s=0.05, chunk_size=4))
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    events = collect(session)
    task = asyncio.create_task(session.submit("write a lot"))
    for _ in range(200):
        await asyncio.sleep(0.02)
        if any(getattr(e, "text", "").strip() for e in events if type(e).__name__ == "TextDelta"):
            break
    assert session.cancel()
    result = await asyncio.wait_for(task, 10)
    assert result.status == "cancelled"
    assert result.text.startswith("part")
    assert len(result.text) < len("partial answer " * 40)
    assert result.text.endswith("[cancelled by the user]")
    assert session.history[-1]["content"].endswith("[cancelled by the user]")
    assert not any(isinstance(e, TurnFinished) for e in events)


async def test_denied_write_leaves_file_and_tells_model(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate",
                                  "arguments": {"agent": "code", "task": "empty app.py"}}]),
        ScriptedTurn(tool_calls=[{"name": "write_file",
                                  "arguments": {"path": "app.py", "content": "gone\n"}}]),
        ScriptedTurn(text='{"summary": "the write was denied"}'),
        ScriptedTurn(text="I could not write."),
    )
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    events = collect(session)
    result = await session.submit("overwrite app.py")
    assert result.status == "done"
    assert "def greet" in (git_repo / "app.py").read_text()
    started = [e for e in events if isinstance(e, ToolCallStarted) and e.name == "write_file"]
    finished = [e for e in events if isinstance(e, ToolCallFinished) and e.name == "write_file"]
    assert started[0].arguments == {"path": "app.py", "content": "gone\n"}
    assert started[0].agent_id != "main"  # the code agent tried it
    assert finished[0].status == "denied"
    tool_msg = [m for m in fake_model.requests[2]["messages"] if m["role"] == "tool"][0]
    assert "Denied" in tool_msg["content"]


async def test_orchestrator_cannot_write_itself(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "write_file",
                                  "arguments": {"path": "app.py", "content": "gone\n"}}]),
        ScriptedTurn(text="I will delegate instead."),
    )
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    result = await session.submit("overwrite app.py")
    assert result.status == "done"
    assert "def greet" in (git_repo / "app.py").read_text()
    tool_msg = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"][0]
    assert "Unknown tool 'write_file'" in tool_msg["content"]


async def test_resumed_session_continues_the_conversation(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    fake_model.script(ScriptedTurn(text="The answer is 42."), ScriptedTurn(text="You asked 42."))
    first = open_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    await first.submit("what is the answer?")
    await first.close()  # as if the process ended here

    again = open_session(model_settings(git_repo), git_repo, approver=PolicyApprover(),
                         resume="last")
    assert again.session_id == first.session_id
    result = await again.submit("what did I ask?")
    assert result.text == "You asked 42."
    contents = [m.get("content") for m in fake_model.requests[1]["messages"]]
    assert "what is the answer?" in contents and "The answer is 42." in contents
    await again.close()


async def test_a_prompt_sent_while_the_tokenizer_loads_leaves_the_loop_free(
    git_repo: Path, fake_model: Any, model_settings: Any, monkeypatch: Any,
) -> None:
    """A prompt typed during the warm-up: its system prompt is measured with the tokenizer the
    warm-up is still loading. Waiting for that load on the event loop froze the screen (0.2-0.5
    s, every keystroke with it)."""
    from valarmind_tui.core import tokenizer

    asked, released = threading.Event(), threading.Event()
    waited_in_vain: list[bool] = []
    loaded = tokenizer.encoding

    def still_loading(name: str = "cl100k_base") -> Any:
        asked.set()
        waited_in_vain.append(not released.wait(10))  # 10 s: the loop could not release it
        return loaded(name)

    monkeypatch.setattr(tokenizer, "encoding", still_loading)
    fake_model.script(ScriptedTurn(text="hello back"))
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    prompt = asyncio.create_task(session.submit("hello"))
    await asyncio.to_thread(asked.wait, 10)
    await asyncio.sleep(0.05)  # the loop still runs while the tokenizer loads
    released.set()
    result = await asyncio.wait_for(prompt, 60)
    assert result.status == "done" and not any(waited_in_vain)
