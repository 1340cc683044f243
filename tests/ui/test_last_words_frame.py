"""The answer's last words get a frame of their own, before the end of the turn's decorations
(the tokens and the idle mark in the status bar, the agent's row in the sidebar), which follow in
the next frames (issue #36: the lag from the last chunk to the last words on screen)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from textual.screen import Screen

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.core.events import (
    PromptFinished,
    RunStatus,
    TextDelta,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.widgets import chat as chat_module
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.status import StatusBar


@dataclass(frozen=True)
class Frame:
    """What one frame drew (read as it ends: a change made before it is drawn in it)."""

    layout: bool
    answer: str
    tokens: int
    busy: bool


def _record_frames(app: ValarMindApp, monkeypatch: pytest.MonkeyPatch) -> list[Frame]:
    # The order is under test, not the cap on the wait (a frame can take longer than
    # WORDS_FRAME_WAIT_S on a loaded machine, and the decorations then come before it).
    monkeypatch.setattr(chat_module, "WORDS_FRAME_WAIT_S", 10.0)
    frames: list[Frame] = []
    update = Screen._on_timer_update

    def recorded(screen: Screen[Any]) -> None:
        layout = screen._layout_required
        update(screen)
        if screen is not app.screen:
            return
        answers = [a for a in app.query(AssistantMessage) if a.is_mounted and a.children]
        status = app.query_one(StatusBar)
        frames.append(Frame(layout, answers[-1].answer.plain_text if answers else "",
                            status.tokens, status.busy))

    monkeypatch.setattr(Screen, "_on_timer_update", recorded)
    return frames


async def _first_words_drawn(pilot: Any, app: ValarMindApp, frames: list[Frame]) -> Any:
    """A turn started and its first words on screen; the session's bus, for what comes next."""
    await wait_for(pilot, lambda: app.session is not None)
    bus = app.session.bus
    bus.publish(TurnStarted(turn=1, model="m"))
    bus.publish(TextDelta(text="Here is the answer.\n\n"))
    await wait_for(pilot, lambda: frames and "Here is the answer." in frames[-1].answer)
    return bus


def _first_showing(frames: list[Frame], words: str) -> int:
    return next(n for n, frame in enumerate(frames) if words in frame.answer)


async def test_decorations_that_come_with_the_last_words_wait_for_their_frame(
        make_session: Any, make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session publishes the turn's end, its usage and the run's end within a millisecond
    or two when nothing follows the answer: all of them reached the UI before its next frame."""
    app = make_app(make_session())
    frames = _record_frames(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        bus = await _first_words_drawn(pilot, app, frames)
        for event in (TextDelta(text="And its last words."),
                      TurnFinished(turn=1, text="Here is the answer.\n\nAnd its last words."),
                      UsageUpdated(prompt_tokens=40, completion_tokens=9, cost_usd=None,
                                   session_tokens=49),
                      PromptFinished(status=RunStatus.DONE, text="")):
            bus.publish(event)
        await wait_for(pilot, lambda: frames[-1].tokens == 49 and not frames[-1].busy)
    words = _first_showing(frames, "And its last words.")
    assert frames[words].tokens == 0 and frames[words].busy
    assert frames[-1].tokens == 49 and not frames[-1].busy  # in the frames after


async def test_the_last_words_are_drawn_before_the_turns_decorations(
        make_session: Any, make_app: Any, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_model.script(ScriptedTurn(text="Here is the answer.\n\nAnd its last words.",
                                   usage={"prompt_tokens": 40, "completion_tokens": 9}))
    app = make_app(make_session())
    frames = _record_frames(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"say it", "enter")
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.tokens == 49 and not status.busy)
        await wait_for(pilot, lambda: frames and not frames[-1].busy)
    words = _first_showing(frames, "And its last words.")
    # No usage in its frame. (The busy mark is not asked: the prompt's own task clears it when
    # the session's run returns, which on a loaded machine can come before this frame.)
    assert frames[words].tokens == 0
    later = frames[words + 1:]
    assert any(frame.tokens == 49 for frame in later)  # the decorations still come, after
    assert not later[-1].busy and later[-1].tokens == 49


async def test_last_words_that_keep_the_answers_height_repaint_its_lines_without_a_layout(
        make_session: Any, make_app: Any, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # the model pauses after "Hello " until a frame showed it (paced chunks could all arrive
    # together when a loaded machine was slow to read the first)
    more = threading.Event()
    fake_model.script(ScriptedTurn(text="Hello there, friend.", chunk_size=6, pause_until=more))
    app = make_app(make_session())
    frames = _record_frames(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"greet me", "enter")
        try:
            await wait_for(pilot, lambda: frames and "Hello" in frames[-1].answer, 30)
        finally:
            more.set()
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.tokens > 0 and not status.busy)
        await wait_for(pilot, lambda: frames and not frames[-1].busy)
    first, last = _first_showing(frames, "Hello"), _first_showing(frames, "friend.")
    assert first < last
    assert frames[first].layout  # the answer appeared
    assert not frames[last].layout  # one line, before and after: only its text repainted


async def test_the_last_words_are_drawn_at_the_turns_end_not_at_the_next_frame_tick(
        make_session: Any, make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual draws on a grid of ticks; the last words, coming a few ms after the frame of the
    first ones, waited for its next tick. With that tick stopped they are drawn all the same:
    the turn's end draws them itself."""
    app = make_app(make_session())
    frames = _record_frames(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        bus = await _first_words_drawn(pilot, app, frames)
        app.screen._update_timer.stop()  # no tick draws anything from here on
        bus.publish(TextDelta(text="And its last words."))
        bus.publish(TurnFinished(turn=1, text="Here is the answer.\n\nAnd its last words."))
        for _ in range(250):  # not pilot.pause(): it draws a frame itself
            if "And its last words." in frames[-1].answer:
                break
            await asyncio.sleep(0.02)
        assert "And its last words." in frames[-1].answer


async def test_the_prompts_frame_is_drawn_as_its_turn_starts_not_at_the_next_frame_tick(
        make_session: Any, make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resumed after a pause, Textual's frame timer ticks one to two periods later: the busy
    mark and the prompt's message waited, and often came with the answer's first words, in a
    heavier frame. With that tick stopped they are drawn all the same: the turn's start draws
    them itself."""
    app = make_app(make_session())
    frames = _record_frames(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await wait_for(pilot, lambda: frames and not frames[-1].busy)
        app.screen._update_timer.stop()  # no tick draws anything from here on
        app.session.bus.publish(TurnStarted(turn=1, model="m"))
        for _ in range(250):  # not pilot.pause(): it draws a frame itself
            if frames[-1].busy:
                break
            await asyncio.sleep(0.02)
        assert frames[-1].busy
