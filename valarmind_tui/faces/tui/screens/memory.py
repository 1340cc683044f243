"""Where a `# note` goes: the note, then the three files it can be saved to (issue #35)."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from valarmind_tui.context.memory import PLACE_HELP, PLACES, MemoryPlace, memory_file
from valarmind_tui.core.visible_text import visible


class MemoryPlacePicker(ModalScreen[MemoryPlace | None]):
    """Shows the note and asks which file it goes to; Esc saves nothing."""

    DEFAULT_CSS = """
    MemoryPlacePicker { align: center middle; background: $background 60%; }
    MemoryPlacePicker #dialog {
        width: 90%; max-width: 110; height: auto; border: thick $accent;
        background: $surface; padding: 0 1;
    }
    MemoryPlacePicker #title { text-style: bold; color: $accent; }
    MemoryPlacePicker #note { margin: 1 0 0 0; }
    MemoryPlacePicker OptionList { height: auto; margin: 1 0; }
    MemoryPlacePicker #hints { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, note: str, project_root: Path, home: Path) -> None:
        super().__init__()
        self.note, self.project_root, self.home = note, project_root, home

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Remember this note where?", id="title")
            yield Static(Content(f"“{visible(self.note)}”"), id="note")
            options = []
            for number, place in enumerate(PLACES, 1):
                _path, shown = memory_file(place, self.project_root, self.home)
                options.append(Option(Content.assemble(
                    (f"{number}  {shown}", "bold"), ("  " + PLACE_HELP[place], "dim")), id=place))
            yield OptionList(*options, id="places")
            yield Static("[b]enter[/] save here   [b]esc[/] don't save", id="hints")

    @on(OptionList.OptionSelected, "#places")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        place = event.option.id
        self.dismiss(place if place in PLACES else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
