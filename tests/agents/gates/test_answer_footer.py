"""The TUI shows the gates' report under the answer and the verdict in its footer."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from valarmind_tui.core.events import RunStatus
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.streaming_markdown import StreamingMarkdown

REPORT = "## Quality gates (NOT verified)\nRequired because the change touches 2 files."


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatView()


async def test_unverified_answer_shows_the_report_and_the_verdict() -> None:
    app = Host()
    async with app.run_test(size=(110, 30)) as pilot:
        chat = app.query_one(ChatView)
        await chat.finish_answer(RunStatus.UNVERIFIED, REPORT)
        await pilot.pause()
        assert app.query_one(".answer", StreamingMarkdown).source == REPORT
        footer = str(app.query_one(".answer-end", Static).render())
        assert footer.startswith("⚠ unverified: a required quality gate could not run")


async def test_rejected_answer_is_marked_as_an_error() -> None:
    app = Host()
    async with app.run_test(size=(110, 30)) as pilot:
        await app.query_one(ChatView).finish_answer(RunStatus.REJECTED, REPORT)
        await pilot.pause()
        answer = app.query_one(".answer-end", Static)
        assert "rejected: a required quality gate failed" in str(answer.render())
        assert answer.parent is not None and answer.parent.has_class("-rejected")
