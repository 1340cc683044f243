"""The trust question, asked once per project before its own configuration is loaded."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from valarmind_tui.safety.visible_text import visible


class TrustScreen(ModalScreen[bool]):
    """Dismisses with True (trust this folder) or False (skip its configuration)."""

    DEFAULT_CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen #dialog {
        width: 90%; max-width: 100; height: auto; border: thick $warning;
        background: $surface; padding: 0 1;
    }
    TrustScreen #title { text-style: bold; color: $warning; }
    TrustScreen #hints { margin-top: 1; }
    """
    AUTO_FOCUS = None
    BINDINGS = [
        Binding("y", "answer(True)", "Trust"),
        Binding("n", "answer(False)", "Don't trust"),
        Binding("escape", "answer(False)", "Don't trust", show=False),
    ]

    def __init__(self, root: Path, present: tuple[str, ...]) -> None:
        super().__init__()
        self.root, self.present = root, present

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content(visible(f"Trust {self.root}?")), id="title")
            yield Static(Content(
                "This folder has its own ValarMind configuration: "
                f"{visible(', '.join(self.present))}. It can add agents, MCP servers and "
                "plugins, which run code on your machine. It can never change the permission "
                "mode, endpoints, keys or sandbox. Without trust, it is skipped."
            ), id="body")
            yield Static("[b]y[/] trust this folder   [b]n[/] don't trust   "
                         "(remembered; change with /trust)", id="hints")

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)
