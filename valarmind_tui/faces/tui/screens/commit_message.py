"""The commit message editor: /commit's message, prefilled, edited before git commits it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from valarmind_tui.core.events import CommitMessageRequested

DRAFTED = {
    "model": "Written by the model from the staged diff.",
    "files": "Drafted from the changed files: no model wrote it.",
}


class CommitMessageScreen(ModalScreen[str | None]):
    """Dismisses with the edited message, or None to cancel the commit; the app passes it to
    Session.answer_commit_message."""

    DEFAULT_CSS = """
    CommitMessageScreen { align: center middle; background: $background 60%; }
    CommitMessageScreen #dialog {
        width: 90%; max-width: 100; height: auto; max-height: 90%; border: thick $accent;
        background: $surface; padding: 0 1;
    }
    CommitMessageScreen #title { text-style: bold; color: $accent; }
    CommitMessageScreen #drafted { color: $text-muted; }
    CommitMessageScreen #message { height: 12; margin: 1 0; }
    CommitMessageScreen #hints { background: $panel; padding: 0 1; }
    """
    BINDINGS = [
        Binding("ctrl+s", "commit", "Commit", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, request: CommitMessageRequested) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Commit message", id="title")
            yield Static(Content(DRAFTED.get(self.request.drafted_by, "")), id="drafted")
            yield TextArea(self.request.message, id="message", soft_wrap=True)
            yield Static("[b]ctrl+s[/] commit   [b]esc[/] cancel the commit", id="hints")

    def on_mount(self) -> None:
        self.query_one("#message", TextArea).focus()

    def action_commit(self) -> None:
        self.dismiss(self.query_one("#message", TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
