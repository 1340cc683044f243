"""The pieces of the conversation: a user prompt, an assistant answer, notices, shell output."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

_END_LABEL = {
    "cancelled": "⏹ cancelled: the answer above is partial",
    "failed": "✗ failed",
    "incomplete": "… incomplete: the agent stopped before finishing",
}


class UserMessage(Static):
    """What the person sent, with the files they attached."""

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0 1 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
    }
    """

    def __init__(self, text: str, attachments: tuple[str, ...] = ()) -> None:
        parts: list[Content | tuple[str, str] | str] = [Content(text)]
        if attachments:
            parts.append(("\n📎 " + ", ".join(attachments), "$text-muted"))
        super().__init__(Content.assemble(*parts))
        self.text = text


class AssistantMessage(Vertical):
    """One streamed model response: folded reasoning, then Markdown streamed as it arrives."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; }
    AssistantMessage .reasoning { display: none; background: transparent; border: none; }
    AssistantMessage.-has-reasoning .reasoning { display: block; }
    AssistantMessage .reasoning-text { color: $text-muted; text-style: italic; }
    AssistantMessage Markdown { margin: 0; padding: 0 1; background: transparent; }
    AssistantMessage .answer-end { color: $warning; padding: 0 1; }
    AssistantMessage.-failed .answer-end { color: $error; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self.reasoning = ""
        self.status: str | None = None
        self._stream: MarkdownStream | None = None

    def compose(self) -> ComposeResult:
        yield Collapsible(
            Static("", classes="reasoning-text", markup=False),
            title="Reasoning", collapsed=True, classes="reasoning",
        )
        yield Markdown("", classes="answer")

    async def append_text(self, text: str) -> None:
        """Stream a piece of Markdown (batched by Textual's MarkdownStream)."""
        self.text += text
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(".answer", Markdown))
        await self._stream.write(text)

    def append_reasoning(self, text: str) -> None:
        self.reasoning += text
        self.add_class("-has-reasoning")
        self.query_one(".reasoning-text", Static).update(Content(self.reasoning))

    async def finish(self, status: str = "done") -> None:
        """Flush the stream; a partial answer is kept and marked."""
        if self.status is not None:
            return
        self.status = status
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if status in _END_LABEL:
            self.add_class(f"-{status}")
            await self.mount(Static(_END_LABEL[status], classes="answer-end"))


class NoticeLine(Static):
    """A notice from the core (retry, compaction, error) or the UI."""

    DEFAULT_CSS = """
    NoticeLine { height: auto; padding: 0 1; color: $text-muted; }
    NoticeLine.-warning { color: $warning; }
    NoticeLine.-error { color: $error; }
    """

    def __init__(self, message: str, level: str = "info") -> None:
        super().__init__(Content(message), classes=f"-{level}")


class CommandOutput(Vertical):
    """The Markdown a slash command returned."""

    DEFAULT_CSS = """
    CommandOutput { height: auto; margin: 0 0 1 0; border-left: thick $secondary; }
    CommandOutput.-error { border-left: thick $error; }
    CommandOutput Markdown { margin: 0; padding: 0 1; background: transparent; }
    CommandOutput .command-line { color: $text-muted; padding: 0 1; }
    """

    def __init__(self, line: str, text: str, ok: bool = True) -> None:
        super().__init__(classes="" if ok else "-error")
        self.line, self.text = line, text

    def compose(self) -> ComposeResult:
        yield Static(Content(self.line), classes="command-line")
        yield Markdown(self.text)


class ShellOutput(Vertical):
    """A `!command` and what it printed."""

    DEFAULT_CSS = """
    ShellOutput { height: auto; margin: 0 0 1 0; border-left: thick $accent; padding: 0 1; }
    ShellOutput.-error { border-left: thick $error; }
    ShellOutput .shell-command { text-style: bold; }
    ShellOutput .shell-output { color: $foreground; }
    """

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command
        self.output: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content("$ " + self.command), classes="shell-command")
        yield Static("running…", classes="shell-output", markup=False)

    def show(self, output: str, is_error: bool = False) -> None:
        self.output = output
        self.set_class(is_error, "-error")
        text = output.rstrip("\n") or "(no output)"
        self.query_one(".shell-output", Static).update(Content(text))
