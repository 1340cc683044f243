"""The trust question, asked once per project before its own configuration is loaded, and
again when a trusted project's configuration changed since (with what changed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from valarmind_tui.core.visible_text import visible

if TYPE_CHECKING:
    from valarmind_tui.settings.trust.record import ContentChanges


class TrustScreen(ModalScreen[bool | None]):
    """Dismisses with True (trust this folder) or False (skip its configuration)."""

    DEFAULT_CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen #dialog {
        width: 90%; max-width: 100; height: auto; border: thick $warning;
        background: $surface; padding: 0 1;
    }
    TrustScreen #title { text-style: bold; color: $warning; }
    TrustScreen #hints { margin-top: 1; }
    TrustScreen #diff { height: auto; max-height: 20; margin-top: 1; }
    """
    AUTO_FOCUS = None
    BINDINGS = [
        Binding("y", "answer(True)", "Trust"),
        Binding("n", "answer(False)", "Don't trust"),
        Binding("escape", "not_now", "Not now", show=False),
        Binding("enter", "not_now", "Not now", show=False),
    ]

    def __init__(self, root: Path, present: tuple[str, ...],
                 changes: ContentChanges | None = None) -> None:
        super().__init__()
        self.root, self.present, self.changes = root, present, changes

    def compose(self) -> ComposeResult:
        if self.changes is not None:
            yield from self._compose_changed(self.changes)
            return
        with Vertical(id="dialog"):
            yield Static(Content(visible(f"Trust {self.root}?")), id="title")
            yield Static(Content(
                "This folder has its own ValarMind configuration: "
                f"{visible(', '.join(self.present))}. It can add agents, MCP servers and "
                "plugins, which run code on your machine. It can never change the permission "
                "mode, endpoints, keys or sandbox. Without trust, it is skipped."
            ), id="body")
            yield Static("[b]y[/] trust this folder   [b]n[/] don't trust (both remembered; "
                         "change with /trust)   [b]enter[/]/[b]esc[/] not now", id="hints")

    def _compose_changed(self, changes: ContentChanges) -> ComposeResult:
        """A trusted folder whose configuration changed: what changed, and the diff (masked,
        control characters visible: trust_display.py)."""
        with Vertical(id="dialog"):
            yield Static(Content(f"{self.root}: its configuration changed since you trusted "
                                 "it"), id="title")
            yield Static(Content(f"{changes.names()}. None of it loads until you trust it "
                                 "again."), id="body")
            with VerticalScroll(id="diff"):
                yield Static(Content(changes.diff), id="changes")
            yield Static("[b]y[/] trust it as it is now   [b]n[/] skip it this time "
                         "(asked again next time)", id="hints")

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)

    def action_not_now(self) -> None:
        """Esc or Enter: skipped this time, nothing remembered (it asks again next time)."""
        self.dismiss(None)
