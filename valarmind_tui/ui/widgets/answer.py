"""Markdown in the conversation: the streamed answer, a command's output, the offline banner.

Kept apart from messages.py so the first frame does not import the Markdown parser (the session
thread imports this module once the first frame is painted).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Static

from valarmind_tui.ui.widgets.streaming_markdown import StreamingMarkdown

_END_LABEL = {
    "cancelled": "⏹ cancelled: the answer above is partial",
    "failed": "✗ failed",
    "incomplete": "… incomplete: the agent stopped before finishing",
}


class AssistantMessage(Vertical):
    """One streamed model response: folded reasoning, then its Markdown as it arrives."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; }
    AssistantMessage .reasoning { display: none; background: transparent; border: none; }
    AssistantMessage.-has-reasoning .reasoning { display: block; }
    AssistantMessage .reasoning-text { color: $text-muted; text-style: italic; }
    AssistantMessage StreamingMarkdown { padding: 0 1; }
    AssistantMessage .answer-end { color: $warning; padding: 0 1; }
    AssistantMessage.-failed .answer-end { color: $error; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self.reasoning = ""
        self.status: str | None = None

    def compose(self) -> ComposeResult:
        yield Collapsible(
            Static("", classes="reasoning-text", markup=False),
            title="Reasoning", collapsed=True, classes="reasoning",
        )
        yield StreamingMarkdown(classes="answer")

    @property
    def answer(self) -> StreamingMarkdown:
        return self.query_one(".answer", StreamingMarkdown)

    @property
    def source(self) -> str:
        """The Markdown on screen (the whole answer once it is finished)."""
        return self.answer.source

    def append_text(self, text: str) -> None:
        """Add a piece of the answer (drawn at the next frame)."""
        self.text += text
        self.answer.append(text)

    def append_reasoning(self, text: str) -> None:
        self.reasoning += text
        self.add_class("-has-reasoning")
        self.query_one(".reasoning-text", Static).update(Content(self.reasoning))

    async def finish(self, status: str = "done") -> None:
        """Flush the stream; a partial answer is kept and marked."""
        if self.status is not None:
            return
        self.status = status
        self.answer.flush()
        if status in _END_LABEL:
            self.add_class(f"-{status}")
            await self.mount(Static(_END_LABEL[status], classes="answer-end"))


class CommandOutput(Vertical):
    """The Markdown a slash command returned."""

    DEFAULT_CSS = """
    CommandOutput { height: auto; margin: 0 0 1 0; border-left: thick $secondary; }
    CommandOutput.-error { border-left: thick $error; }
    CommandOutput StreamingMarkdown { padding: 0 1; }
    CommandOutput .command-line { color: $text-muted; padding: 0 1; }
    """

    def __init__(self, line: str, text: str, ok: bool = True) -> None:
        super().__init__(classes="" if ok else "-error")
        self.line, self.text = line, text

    def compose(self) -> ComposeResult:
        yield Static(Content(self.line), classes="command-line")
        yield StreamingMarkdown(self.text)


class OfflineBanner(StreamingMarkdown):
    """Says how to configure a model when none is."""

    DEFAULT_CSS = """
    OfflineBanner {
        border: round $warning;
        background: $surface;
        margin: 1 0;
        padding: 0 1;
    }
    """
