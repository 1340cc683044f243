"""The plain pieces of the conversation: a user prompt, notices, shell output. Their text may
come from outside (a pasted prompt, a command's output): its control characters are shown.

The Markdown ones (the streamed answer, command output) are in answer.py."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from valarmind_tui.core.visible_text import visible


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
        parts: list[Content | tuple[str, str] | str] = [Content(visible(text))]
        if attachments:
            parts.append(("\n📎 " + visible(", ".join(attachments)), "$text-muted"))
        super().__init__(Content.assemble(*parts))
        self.text = text


class NoticeLine(Static):
    """A notice from the core (retry, compaction, error) or the UI."""

    DEFAULT_CSS = """
    NoticeLine { height: auto; padding: 0 1; color: $text-muted; }
    NoticeLine.-warning { color: $warning; }
    NoticeLine.-error { color: $error; }
    """

    def __init__(self, message: str, level: str = "info") -> None:
        super().__init__(Content(visible(message)), classes=f"-{level}")


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
        yield Static(Content("$ " + visible(self.command)), classes="shell-command")
        yield Static("running…", classes="shell-output", markup=False)

    def show(self, output: str, is_error: bool = False) -> None:
        self.output = output
        self.set_class(is_error, "-error")
        text = output.rstrip("\n") or "(no output)"
        self.query_one(".shell-output", Static).update(Content(visible(text)))
