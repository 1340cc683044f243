"""Bus events → widgets: every event the session publishes reaches the chat and the sidebar;
some also change the status bar, open a modal (an approval, a commit message) or end a turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from valarmind_tui.core.events import (
    ApprovalRequested,
    ApprovalResolved,
    CommitMessageRequested,
    CommitStepFinished,
    Event,
    ModeChanged,
    Notice,
    PromptFinished,
    RunStatus,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.tui import garbage
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen
from valarmind_tui.faces.tui.screens.commit_message import CommitMessageScreen
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.faces.tui.widgets.sidebar import Sidebar
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.safety.gate.approval import ApprovalAnswer

if TYPE_CHECKING:
    from valarmind_tui.faces.tui.app import ValarMindApp


class EventRouter:
    """Routes one app's session events to its widgets and modals."""

    def __init__(self, app: ValarMindApp) -> None:
        self._app = app
        self._approvals: dict[str, ApprovalScreen] = {}
        self._last_notice = ""

    async def route(self, event: Event) -> None:
        app = self._app
        try:
            chat, sidebar = app.query_one(ChatView), app.query_one(Sidebar)
        except NoMatches:  # shutting down: the widgets are gone, events still queued
            return
        await chat.handle_event(event)
        sidebar.handle_event(event)
        if isinstance(event, UsageUpdated):
            status = app.query_one(StatusBar)
            status.tokens, status.cost = event.session_tokens, event.session_cost_usd
        elif isinstance(event, ModeChanged):
            app.query_one(StatusBar).mode = event.mode
        elif isinstance(event, TurnStarted) and event.agent_id == "main":
            app.query_one(StatusBar).busy = True  # also for a turn a command runs (/plan Q)
            garbage.settle_turn()
        elif isinstance(event, Notice):
            self._last_notice = event.message
        elif isinstance(event, ApprovalRequested):
            self._ask(event)
        elif isinstance(event, ApprovalResolved):
            screen = self._approvals.pop(event.request_id, None)
            if screen is not None and screen.is_current:
                screen.dismiss(None)
        elif isinstance(event, PromptFinished) and event.agent_id == "main":
            await self._prompt_finished(event)
        elif isinstance(event, CommitStepFinished):
            level = "error" if event.outcome in ("failed", "not_run") else "info"
            detail = f" ({event.detail})" if event.detail else ""
            await chat.add(NoticeLine(f"commit · {event.step}: "
                                      f"{event.outcome.replace('_', ' ')}{detail}", level))
        elif isinstance(event, CommitMessageRequested):
            self._edit_commit_message(event)

    def _ask(self, event: ApprovalRequested) -> None:
        def answered(answer: ApprovalAnswer | None) -> None:
            self._approvals.pop(event.request_id, None)
            if answer is not None:
                self._app.live.answer_approval(event.request_id, answer)

        screen = ApprovalScreen(event)
        self._approvals[event.request_id] = screen
        self._app.push_screen(screen, callback=answered)

    def _edit_commit_message(self, event: CommitMessageRequested) -> None:
        def edited(message: str | None) -> None:
            self._app.live.answer_commit_message(event.request_id, message)

        self._app.push_screen(CommitMessageScreen(event), callback=edited)

    def _settle_if_idle(self) -> None:
        """A full collection pauses the UI: not once the next prompt streams (typed within
        the half second); the next prompt's end runs it."""
        if not self._app.working:
            garbage.settle_idle()

    async def _prompt_finished(self, event: PromptFinished) -> None:
        app = self._app
        app.set_timer(0.5, self._settle_if_idle)  # while the person reads the answer
        app.query_one(StatusBar).busy = app.turn_running
        chat = app.query_one(ChatView)
        marker = event.text.rfind("## Quality gates") if event.gates else -1
        await chat.finish_answer(event.status, event.text[marker:] if marker >= 0 else "")
        if event.status == RunStatus.FAILED and event.text and event.text != self._last_notice:
            await chat.add(NoticeLine(event.text, "error"))
