"""The /rewind and /resume pickers: which message to go back to and what to restore, a preview
of what would be written (conflicts named and asked about), and which stored session to open."""

from __future__ import annotations

import time

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from valarmind_tui.checkpoints.rewind import OnConflict, RewindOutcome, RewindPoint, Scope
from valarmind_tui.commands.rewind import describe_summary
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui.widgets.diff import DiffView
from valarmind_tui.store.sessions import SessionSummary

_CSS = """
{name} {{ align: center middle; background: $background 60%; }}
{name} #dialog {{
    width: 90%; max-width: 120; height: auto; max-height: 90%; border: thick $accent;
    background: $surface; padding: 0 1;
}}
{name} #title {{ text-style: bold; color: $accent; }}
{name} OptionList {{ height: auto; max-height: 20; margin: 1 0; }}
{name} #details {{ height: auto; max-height: 28; margin: 1 0; }}
{name} .conflict {{ color: $warning; text-style: bold; }}
{name} #hints {{ color: $text-muted; }}
"""


def _when(at: float | None) -> str:
    return time.strftime("%m-%d %H:%M", time.localtime(at)) if at else "--"


class RewindPicker(ModalScreen[tuple[RewindPoint, Scope] | None]):
    """Pick one of the person's messages, then files, conversation or both."""

    DEFAULT_CSS = _CSS.format(name="RewindPicker")
    BINDINGS = [
        Binding("f", "scope('files')", "Files", show=False),
        Binding("c", "scope('conversation')", "Conversation", show=False),
        Binding("b", "scope('both')", "Both", show=False),
        Binding("escape", "back", "Back", show=False),
    ]
    chosen: reactive[int | None] = reactive(None)

    def __init__(self, points: list[RewindPoint]) -> None:
        super().__init__()
        self.points = points

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Rewind to before which message?", id="title")
            options = [Option(self._label(p), id=str(p.number)) for p in reversed(self.points)]
            yield OptionList(*options, id="points")
            yield Static("[b]enter[/] choose   [b]esc[/] cancel", id="hints")

    def _label(self, point: RewindPoint) -> Content:
        text = point.text.strip().splitlines()[0][:80] if point.text.strip() else "(empty)"
        files = "  · files changed since" if point.turn is not None else ""
        return Content.assemble((f"{point.number:>3}  {_when(point.at)}  ", "dim"), visible(text),
                                (files, "italic"))

    @on(OptionList.OptionSelected, "#points")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.chosen = int(event.option.id or 0)

    def watch_chosen(self, chosen: int | None) -> None:
        hints = self.query_one("#hints", Static)
        title = self.query_one("#title", Static)
        if chosen is None:
            title.update("Rewind to before which message?")
            hints.update("[b]enter[/] choose   [b]esc[/] cancel")
            return
        title.update(Content(f"Rewind to before message {chosen}: what to restore?"))
        hints.update("[b]f[/] files   [b]c[/] conversation   [b]b[/] both   [b]esc[/] back")

    def action_scope(self, scope: Scope) -> None:
        if self.chosen is not None:
            self.dismiss((self.points[self.chosen - 1], scope))

    def action_back(self) -> None:
        if self.chosen is None:
            self.dismiss(None)
        else:
            self.chosen = None


class RewindPreview(ModalScreen[OnConflict | None]):
    """What the rewind would write; dismisses with how to treat hand edits, or None (cancel)."""

    DEFAULT_CSS = _CSS.format(name="RewindPreview")
    BINDINGS = [
        Binding("y", "answer('ask')", "Rewind", show=False),
        Binding("o", "answer('overwrite')", "Overwrite", show=False),
        Binding("k", "answer('keep')", "Keep mine", show=False),
        Binding("n", "cancel", "Cancel", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, plan: RewindOutcome) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="dialog"):
            yield Static(Content(f"Rewind to before message {plan.point.number} "
                                 f"({plan.scope}): nothing is written yet"), id="title")
            with VerticalScroll(id="details"):
                for line in self._summary():
                    yield Static(Content(visible(line)))
                if plan.conflicts:
                    yield Static(Content("Changed by hand since ValarMind left them: "
                                         + visible(", ".join(plan.conflicts))), classes="conflict",
                                 id="conflicts")
                if plan.files and plan.files.report.diff:
                    yield DiffView(plan.files.report.diff, id="diff")
            hint = ("[b]o[/] overwrite my changes   [b]k[/] keep my changes   [b]n[/] cancel"
                    if plan.conflicts else "[b]y[/] rewind   [b]n[/] cancel")
            yield Static(hint, id="hints")

    def _summary(self) -> list[str]:
        plan, lines = self.plan, list(self.plan.notes)
        if plan.scope != "files":
            lines.append(f"The conversation loses its last {plan.dropped} messages.")
        if plan.files is not None:
            report = plan.files.report
            if report.written:
                lines.append("Restores: " + ", ".join(report.written))
            if report.removed:
                lines.append("Removes: " + ", ".join(report.removed))
            if not (report.written or report.removed or report.conflicts):
                lines.append("No file needs restoring.")
            if report.not_restored:
                lines.append("Cannot restore (over the size cap or not a regular file): "
                             + ", ".join(report.not_restored))
        return lines

    def action_answer(self, answer: OnConflict) -> None:
        if (answer == "ask") != bool(self.plan.conflicts):  # y without conflicts; o/k with
            self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ResumePicker(ModalScreen[str | None]):
    """Pick a stored session of the project; dismisses with its id."""

    DEFAULT_CSS = _CSS.format(name="ResumePicker")
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, summaries: list[SessionSummary], current: str | None) -> None:
        super().__init__()
        self.summaries, self.current = summaries, current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Resume which session?", id="title")
            options = [Option(Content(visible(describe_summary(s))
                                      + ("  (this one)" if s.info.id == self.current else "")),
                              id=s.info.id) for s in self.summaries]
            yield OptionList(*options, id="sessions")
            yield Static("[b]enter[/] open   [b]esc[/] cancel", id="hints")

    @on(OptionList.OptionSelected, "#sessions")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
