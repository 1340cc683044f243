"""The main agent's answer is mounted as its turn starts, empty, and drawn with the prompt
while the request is out: the frame of its words then mounts nothing (issue #36: the lag from
the last chunk to the last words on screen). It must not change what the chat shows: a turn
without words leaves no answer, and what comes before the first words is shown before them."""

from __future__ import annotations

from typing import Any

from tests.ui.conftest import wait_for
from valarmind_tui.core.events import (
    Event,
    Notice,
    PromptFinished,
    RunStatus,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock


def _shown(chat: ChatView) -> list[tuple[str, str]]:
    """The chat's items as a person reads them: their kind and text."""
    kinds = []
    for item in chat.items:
        if isinstance(item, AssistantMessage):
            kinds.append(("answer", item.answer.plain_text.strip()))
        elif isinstance(item, ToolCallBlock):
            kinds.append(("tool", ""))
        elif isinstance(item, NoticeLine):
            kinds.append(("notice", str(item.render())))
    return kinds


async def test_the_answers_words_fill_the_widget_mounted_as_its_turn_started(
        make_session: Any, make_app: Any) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        chat = app.query_one(ChatView)
        app.session.bus.publish(TurnStarted(turn=1, model="m"))
        await wait_for(pilot, lambda: chat.current is not None and chat.current.is_mounted)
        early = chat.current
        app.session.bus.publish(TextDelta(text="The words."))
        app.session.bus.publish(TurnFinished(turn=1, text="The words."))
        await wait_for(pilot, lambda: "The words." in early.answer.plain_text)
        assert list(app.query(AssistantMessage)) == [early]


async def _shown_once(app: Any, answer: str, *events: Event) -> list[tuple[str, str]]:
    """What the chat shows once `events` are published and `answer` is among its items."""
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        chat = app.query_one(ChatView)
        for event in events:
            app.session.bus.publish(event)
        await wait_for(pilot, lambda: ("answer", answer) in _shown(chat))
        return _shown(chat)


async def test_a_turn_of_tool_calls_leaves_no_empty_answer_and_the_words_come_after_them(
        make_session: Any, make_app: Any) -> None:
    shown = await _shown_once(
        make_app(make_session()), "Read it.",
        TurnStarted(turn=1, model="m"),
        ToolCallStarted(call_id="c1", name="read_file", arguments={"path": "a"}),
        ToolCallFinished(call_id="c1", name="read_file", status="ok", output="x"),
        TurnFinished(turn=1, text=""), TurnStarted(turn=2, model="m"),
        TextDelta(text="Read it."), TurnFinished(turn=2, text="Read it."),
        PromptFinished(status=RunStatus.DONE, text="Read it."))
    assert shown == [("tool", ""), ("answer", "Read it.")]


async def test_what_comes_before_the_first_words_is_shown_before_the_answer(
        make_session: Any, make_app: Any) -> None:
    shown = await _shown_once(
        make_app(make_session()), "From n.",
        TurnStarted(turn=1, model="m"),
        Notice(level="warning", message="m failed; n answers instead"),
        TextDelta(text="From n."), TurnFinished(turn=1, text="From n."))
    assert shown == [("notice", "m failed; n answers instead"), ("answer", "From n.")]


async def test_a_turn_without_words_leaves_no_answer(make_session: Any, make_app: Any) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        chat = app.query_one(ChatView)
        app.session.bus.publish(TurnStarted(turn=1, model="m"))
        await wait_for(pilot, lambda: chat.current is not None)
        app.session.bus.publish(TurnFinished(turn=1, text=""))
        app.session.bus.publish(PromptFinished(status=RunStatus.DONE, text=""))
        await wait_for(pilot, lambda: chat.current is None)
        await pilot.pause(0.1)
        assert not list(app.query(AssistantMessage))
