"""A message sent as the answer appears, while the run finishes (its last words drawn, a Stop
hook, the checkpoint), reaches the model: after a run that ended well it is the next prompt.
It was dropped and given back to the prompt, so a second Enter was needed."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.messages import UserMessage
from valarmind_tui.faces.tui.widgets.prompt import PromptInput
from valarmind_tui.faces.tui.widgets.steering import SteeringMessage

SLOW_STOP_HOOK = {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "sleep 1"}]}]}
"""Keeps the run finishing for a second after its answer is on screen."""


def _answers(app: Any) -> list[str]:
    return [m.text for m in app.query(AssistantMessage)]


async def test_a_message_sent_as_the_answer_appears_is_the_next_prompt(
    make_session: Any, make_app: Any, fake_model: Any,
) -> None:
    fake_model.script(ScriptedTurn(text="first answer"), ScriptedTurn(text="second answer"))
    app = make_app(make_session(hooks=SLOW_STOP_HOOK))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "first answer" in _answers(app))
        assert app.working  # the Stop hook runs: the run has not ended
        app.query_one(PromptInput).load_text("and then?")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "second answer" in _answers(app), timeout=15)
        assert fake_model.requests[1]["messages"][-1]["content"] == "and then?"
        assert [m.text for m in app.query(UserMessage)][-1] == "and then?"
        assert not list(app.query(SteeringMessage))  # shown once, as the prompt it became
        assert app.query_one(PromptInput).text == ""


async def test_a_message_the_cancelled_run_never_read_is_given_back(
    make_session: Any, make_app: Any, fake_model: Any,
) -> None:
    fake_model.script(ScriptedTurn(text="first answer"))
    app = make_app(make_session(hooks=SLOW_STOP_HOOK))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "first answer" in _answers(app))
        app.query_one(PromptInput).load_text("and then?")
        await pilot.press("enter")
        await wait_for(pilot, lambda: list(app.query(SteeringMessage)))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.query_one(PromptInput).text == "and then?")
        assert len(fake_model.requests) == 1
        assert [m.state for m in app.query(SteeringMessage)] == ["dropped"]


async def test_a_prompt_sent_between_the_runs_end_and_its_turns_is_sent_after_it(
    make_session: Any, make_app: Any, fake_model: Any,
) -> None:
    """The session has finished the run, the app's turn has not (a moment, here held until
    the prompt was sent): the prompt is sent once the turn is over, not refused and given
    back."""
    fake_model.script(ScriptedTurn(text="first answer"), ScriptedTurn(text="second answer"))
    session = make_session()
    app = make_app(session)
    real_submit = session.submit
    tail_over = asyncio.Event()

    async def slow_tail(prompt: str) -> Any:
        result = await real_submit(prompt)
        if prompt == "hello":
            await asyncio.wait_for(tail_over.wait(), 30)
        return result

    session.submit = slow_tail  # type: ignore[method-assign]  # why: the turn's slow tail
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: not session.busy and app.turn_running)
        app.query_one(PromptInput).load_text("and then?")
        await pilot.press("enter")
        assert app.turn_running  # the prompt came before the turn's end
        tail_over.set()
        await wait_for(pilot, lambda: "second answer" in _answers(app), timeout=15)
        assert fake_model.requests[1]["messages"][-1]["content"] == "and then?"
        assert app.query_one(PromptInput).text == ""
