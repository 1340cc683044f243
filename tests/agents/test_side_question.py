"""/btw QUESTION: answered from the conversation as it stands, in one model call without tools,
even while a prompt runs; its exchange is absent from the main history, the store's messages and
the running task's next request."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.side_question import as_plain_text
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session, open_session


def _contents(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content")) for m in messages)


async def test_btw_answers_from_the_conversation_and_leaves_no_trace(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = open_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    fake_model.script(ScriptedTurn(text="The capital is Paris."),
                      ScriptedTurn(text="You asked about France."))
    await session.submit("What is the capital of France?")
    history = list(session.history)
    result = await session.run_command("/btw what did I ask about?")
    assert session.store is not None and session.session_id is not None
    stored = session.store.messages(session.session_id)
    assert "capital of France" in _contents(stored)  # the main exchange is stored
    await session.close()
    assert result.ok and result.text == "You asked about France."
    side = fake_model.requests[1]
    assert "tools" not in side  # one call, no tools
    assert "capital of France" in _contents(side["messages"])
    assert "what did I ask about?" in side["messages"][-1]["content"]
    assert session.history == history
    assert "what did I ask about?" not in _contents(stored)
    assert "You asked about France." not in _contents(stored)


async def test_btw_while_a_prompt_runs_does_not_disturb_it(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="greet says Hello. " * 10, chunk_delay_s=0.05),
        ScriptedTurn(text="It is reading app.py."),
    )
    run = asyncio.ensure_future(session.submit("what does app.py do?"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while len(fake_model.requests) < 2:
        assert loop.time() < deadline
        await asyncio.sleep(0.01)
    side = await session.run_command("/btw what are you doing?")
    result = await run
    await session.close()
    assert side.text == "It is reading app.py."
    assert result.text.startswith("greet says Hello.")
    asked = fake_model.requests[2]
    assert "tools" not in asked
    assert "[called read_file" in _contents(asked["messages"])  # the running step, as text
    assert "what are you doing?" not in _contents(session.history)
    assert "It is reading app.py." not in _contents(session.history)


def test_an_unanswered_tool_call_becomes_text() -> None:
    plain = as_plain_text([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
    ])
    assert all("tool_calls" not in m for m in plain)
    assert plain[-1] == {"role": "assistant",
                         "content": '[called bash with {"command": "ls"}]'}
