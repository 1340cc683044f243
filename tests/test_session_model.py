"""/model: the session's later prompts go to the model it names, through a provider built for
it (session.model_choice), with the conversation kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session


async def test_model_switches_the_model_of_the_next_prompt(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    fake_model.script(ScriptedTurn(text="first answer"), ScriptedTurn(text="second answer"))
    first = await session.submit("hello")
    switched = await session.run_command("/model openai/other-model")
    second = await session.submit("and again")
    await session.close()
    assert (first.text, second.text) == ("first answer", "second answer")
    assert session.model == "openai/other-model" and "openai/other-model" in switched.text
    assert [r["model"] for r in fake_model.requests] == ["fake-model", "other-model"]
    resent = [m.get("content") for m in fake_model.requests[1]["messages"]]
    assert "first answer" in resent  # the conversation goes on with the new model
