"""The approval modal: what the gate wants to do, and the person's answer."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from valarmind_tui.core.events import ApprovalRequested
from valarmind_tui.faces.tui.widgets.diff import DiffView
from valarmind_tui.safety.gate.approval import ApprovalAnswer

_HINTS = {
    "choose": "[b]y[/] allow once   [b]a[/] always allow…   [b]n[/] deny   "
    "[b]f[/] deny with feedback",
    "always": "[b]s[/] always for this session   [b]p[/] always for this project "
    "(.valarmind/config.toml)   [b]esc[/] back",
    "feedback": "Type what the agent should do instead, then [b]enter[/]   [b]esc[/] back",
}


class ApprovalScreen(ModalScreen[ApprovalAnswer]):
    """Dismisses with the ApprovalAnswer; the app passes it to Session.answer_approval."""

    CSS_PATH = "approval.tcss"
    AUTO_FOCUS = None
    BINDINGS = [
        Binding("y", "allow_once", "Allow once"),
        Binding("a", "always", "Always"),
        Binding("n", "deny", "Deny"),
        Binding("f", "feedback", "Deny with feedback"),
        Binding("s", "always_scope('allow_session')", "This session", show=False),
        Binding("p", "always_scope('allow_project')", "This project", show=False),
        Binding("escape", "back", "Back", show=False),
    ]

    stage: reactive[str] = reactive("choose")

    def __init__(self, request: ApprovalRequested) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        req = self.request
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(("Allow ", ""), (req.tool, "bold"), ("?", "")), id="title"
            )
            if req.agent_id not in ("main", "user"):
                yield Static(Content(f"asked by the {req.agent_id} agent"), id="asker")
            yield Static(Content(req.summary), id="summary")
            if req.reason:
                yield Static(Content(req.reason), id="reason")
            if req.warning:
                yield Static(Content(req.warning), id="warning")
            with VerticalScroll(id="details"):
                if req.command is not None:
                    yield Static(Content("$ " + req.command), id="command")
                    if req.cwd:
                        yield Static(Content("in " + req.cwd), id="cwd")
                if req.path:
                    yield Static(Content("path: " + req.path), id="path")
                if req.diff:
                    yield DiffView(req.diff, id="diff")
            yield Input(placeholder="feedback for the agent", id="feedback")
            yield Static(_HINTS["choose"], id="hints")

    def watch_stage(self, stage: str) -> None:
        self.query_one("#hints", Static).update(_HINTS[stage])
        feedback = self.query_one("#feedback", Input)
        feedback.display = stage == "feedback"
        if stage == "feedback":
            feedback.focus()
        else:
            self.set_focus(None)

    def action_allow_once(self) -> None:
        if self.stage == "choose":
            self.dismiss(ApprovalAnswer("allow_once"))

    def action_always(self) -> None:
        if self.stage == "choose":
            self.stage = "always"

    def action_always_scope(self, decision: str) -> None:
        if self.stage == "always":
            # why the ignore below: the button ids are the Literal's values
            self.dismiss(ApprovalAnswer(decision))  # type: ignore[arg-type]  # why: above

    def action_deny(self) -> None:
        if self.stage == "choose":
            self.dismiss(ApprovalAnswer("deny"))

    def action_feedback(self) -> None:
        if self.stage == "choose":
            self.stage = "feedback"

    def action_back(self) -> None:
        self.stage = "choose"

    @on(Input.Submitted, "#feedback")
    def _send_feedback(self, event: Input.Submitted) -> None:
        self.dismiss(ApprovalAnswer("deny", feedback=event.value.strip() or None))
