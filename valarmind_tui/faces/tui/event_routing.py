"""Bus events → widgets: every event the session publishes reaches the chat and the sidebar;
some also change the status bar, open a modal (an approval, a commit message) or end a turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, assert_never

from textual.app import App
from textual.css.query import NoMatches

from valarmind_tui.core.events import (
    AgentFinished,
    AgentSpawned,
    ApprovalRequested,
    ApprovalResolved,
    CheckpointCreated,
    CommitMessageRequested,
    CommitStepFinished,
    Event,
    FilesRestored,
    GoalUpdated,
    HookRan,
    ModeChanged,
    Notice,
    PromptFinished,
    ReasoningDelta,
    ReviewerRan,
    RunStatus,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TraceRecorded,
    TurnFinished,
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
    from valarmind_tui.session.session import Session


class EventRouter:
    """Routes one app's session events to its widgets and modals.

    Given what it needs, not the app it serves: Textual's `App` (its widgets, screens and
    timers), the session attached now (it changes on /resume) and whether a prompt sent from
    the prompt bar is running."""

    def __init__(self, app: App[Any], session: Callable[[], Session],
                 turn_running: Callable[[], bool]) -> None:
        self._app = app
        self._session = session
        self._turn_running = turn_running
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
        match event:
            case UsageUpdated():
                status = app.query_one(StatusBar)
                status.tokens, status.cost = event.session_tokens, event.session_cost_usd
            case ModeChanged():
                app.query_one(StatusBar).mode = event.mode
            case TurnStarted(agent_id="main"):
                app.query_one(StatusBar).busy = True  # also for a turn a command runs (/plan Q)
                garbage.settle_turn()
            case Notice():
                self._last_notice = event.message
            case ApprovalRequested():
                self._ask(event)
            case ApprovalResolved():
                screen = self._approvals.pop(event.request_id, None)
                if screen is not None and screen.is_current:
                    screen.dismiss(None)
            case PromptFinished(agent_id="main"):
                await self._prompt_finished(event)
            case CommitStepFinished():
                level = "error" if event.outcome in ("failed", "not_run") else "info"
                detail = f" ({event.detail})" if event.detail else ""
                await chat.add(NoticeLine(f"commit · {event.step}: "
                                          f"{event.outcome.replace('_', ' ')}{detail}", level))
            case CommitMessageRequested():
                self._edit_commit_message(event)
            case (TurnStarted() | PromptFinished() | TextDelta() | ReasoningDelta()
                  | TurnFinished() | ToolCallStarted() | ToolCallFinished() | AgentSpawned()
                  | AgentFinished() | TaskListChanged() | HookRan() | CheckpointCreated()
                  | FilesRestored() | ReviewerRan() | TraceRecorded() | GoalUpdated()):
                pass  # the chat and the sidebar above showed what there is to show
            case _:
                assert_never(event)

    def _ask(self, event: ApprovalRequested) -> None:
        def answered(answer: ApprovalAnswer | None) -> None:
            self._approvals.pop(event.request_id, None)
            if answer is not None:
                self._session().answer_approval(event.request_id, answer)

        screen = ApprovalScreen(event)
        self._approvals[event.request_id] = screen
        self._app.push_screen(screen, callback=answered)

    def _edit_commit_message(self, event: CommitMessageRequested) -> None:
        def edited(message: str | None) -> None:
            self._session().answer_commit_message(event.request_id, message)

        self._app.push_screen(CommitMessageScreen(event), callback=edited)

    def _settle_if_idle(self) -> None:
        """A full collection pauses the UI: not once the next prompt streams (typed within
        the half second); the next prompt's end runs it."""
        if not (self._turn_running() or self._session().busy):
            garbage.settle_idle()

    async def _prompt_finished(self, event: PromptFinished) -> None:
        app = self._app
        app.set_timer(0.5, self._settle_if_idle)  # while the person reads the answer
        app.query_one(StatusBar).busy = self._turn_running()
        chat = app.query_one(ChatView)
        marker = event.text.rfind("## Quality gates") if event.gates else -1
        await chat.finish_answer(event.status, event.text[marker:] if marker >= 0 else "")
        if event.status == RunStatus.FAILED and event.text and event.text != self._last_notice:
            await chat.add(NoticeLine(event.text, "error"))
