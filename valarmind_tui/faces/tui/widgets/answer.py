"""Markdown in the conversation: the streamed answer, a command's output, the offline banner.

Kept apart from messages.py so the first frame does not import the Markdown parser (the session
thread imports this module once the first frame is painted).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from valarmind_tui.core.events import RunStatus
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui.widgets.one_layout import OneLayoutPass
from valarmind_tui.faces.tui.widgets.streaming_markdown import StreamingMarkdown

_END_LABEL = {
    RunStatus.CANCELLED: "⏹ cancelled: the answer above is partial",
    RunStatus.FAILED: "✗ failed",
    RunStatus.INCOMPLETE: "… incomplete: the agent stopped before finishing",
    RunStatus.UNVERIFIED: "⚠ unverified: a required quality gate could not run (see the report "
                          "above)",
    RunStatus.REJECTED: "✗ rejected: a required quality gate failed (see the report above)",
    RunStatus.TIMEOUT: "⏹ timeout: the orchestrator's time limit ran out; the answer above is "
                       "partial",
    RunStatus.BUDGET: "⏹ budget: a budget is spent; the work so far is kept (/cost)",
}


class ReasoningFold(Static):
    """The model's reasoning, folded to one line; a click unfolds it."""

    DEFAULT_CSS = """
    ReasoningFold { display: none; height: auto; padding: 0 1; color: $text-muted; }
    ReasoningFold.-shown { display: block; }
    """

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self) -> None:
        super().__init__(classes="reasoning")
        self.text = ""

    def append(self, text: str) -> None:
        self.text += visible(text)
        self.add_class("-shown")
        if self.expanded:
            self.refresh(layout=True)

    def render(self) -> Content:
        if not self.expanded:
            return Content("▶ Reasoning")
        return Content.assemble("▼ Reasoning\n", (self.text, "italic"))

    def on_click(self) -> None:
        self.expanded = not self.expanded


class AssistantMessage(OneLayoutPass, Vertical):
    """One streamed model response: folded reasoning, then its Markdown as it arrives."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; }
    AssistantMessage StreamingMarkdown { padding: 0 1; }
    AssistantMessage .answer-end { color: $warning; padding: 0 1; }
    AssistantMessage.-failed .answer-end { color: $error; }
    AssistantMessage.-rejected .answer-end { color: $error; }
    """
    BLANK = True
    """No border, no content of its own: Textual draws its rows blank, without styling them.
    Styled rows are dropped on each new size, so each frame of a growing answer styled every
    visible row of the message again (~14% of the screen's drawing at 1,000 tokens/s)."""

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self.status: RunStatus | None = None
        self._reasoning: ReasoningFold | None = None

    def compose(self) -> ComposeResult:
        yield StreamingMarkdown(classes="answer")

    @property
    def answer(self) -> StreamingMarkdown:
        return self.query_one(".answer", StreamingMarkdown)

    @property
    def reasoning(self) -> str:
        return "" if self._reasoning is None else self._reasoning.text

    @property
    def source(self) -> str:
        """The Markdown on screen (the whole answer once it is finished)."""
        return self.answer.source

    def append_text(self, text: str) -> None:
        """Add a piece of the answer (drawn at the next frame)."""
        self.text += text
        self.answer.append(text)

    def append_reasoning(self, text: str) -> None:
        if self._reasoning is None:
            # Mounted for an answer with reasoning only: a hidden fold in every message made
            # the frame of each answer's words ~1 ms slower (a widget more to mount and lay out)
            self._reasoning = ReasoningFold()
            self.mount(self._reasoning, before=0)
        self._reasoning.append(text)

    async def finish(self, status: RunStatus = RunStatus.DONE) -> None:
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
        yield Static(Content(visible(self.line)), classes="command-line")
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
