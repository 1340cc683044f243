"""A long session keeps the drawn lines of what is on screen only: the answers more than a
screen away drop their Strips (Textual's styled copies and their own) once a prompt ends, and
are drawn again, whole, when the person scrolls back to them."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult

from valarmind_tui.core.events import RunStatus, TextDelta
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.streaming_markdown import StreamingMarkdown


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatView()


async def _settle(pilot: Any, until: Any, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not until():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


def _answer(n: int) -> str:
    return f"# Answer {n}\n\n" + "\n\n".join(
        f"Paragraph {p} of answer {n}: we change `greet` so it returns the text."
        for p in range(12))


def _kept(widget: StreamingMarkdown) -> int:
    """Drawn lines this widget and Textual keep for it."""
    return len(widget._drawn) + len(widget._styles_cache._cache)


async def test_answers_off_screen_forget_their_drawn_lines_and_show_whole_when_scrolled_back(
) -> None:
    app = Host()
    async with app.run_test(size=(100, 24)) as pilot:
        chat = app.query_one(ChatView)
        for n in range(6):
            await chat.handle_event(TextDelta(text=_answer(n)))
            await chat.finish_answer(RunStatus.DONE)
            await pilot.pause()
        answers = list(chat.query(StreamingMarkdown))
        await _settle(pilot, lambda: _kept(answers[0]) == 0)
        assert all(_kept(answer) == 0 for answer in answers[:3])  # screens above the view
        assert _kept(answers[-1]) > 0  # on screen

        chat.scroll_home(animate=False)
        await _settle(pilot, lambda: "Paragraph 0 of answer 0" in _screen(app))
        shown = _screen(app)
        assert "Answer 0" in shown and "Paragraph 0 of answer 0" in shown
        assert _kept(answers[0]) > 0  # drawn again
        assert answers[0].plain_text.count("of answer 0") == 12  # nothing of it was lost

        chat.scroll_end(animate=False)  # back to the end; the next prompt's answer
        await pilot.pause()
        await chat.handle_event(TextDelta(text=_answer(6)))
        await chat.finish_answer(RunStatus.DONE)
        await _settle(pilot, lambda: _kept(answers[0]) == 0)  # forgotten again


def _screen(app: App[None]) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
