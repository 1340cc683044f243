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
    JobChanged,
    ModeChanged,
    ModelFellBack,
    Notice,
    PromptFinished,
    ReasoningDelta,
    ReviewerRan,
    RunStatus,
    SteeringChanged,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TraceRecorded,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.tui import garbage, session_start
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen
from valarmind_tui.faces.tui.screens.commit_message import CommitMessageScreen
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.faces.tui.widgets.prompt import PromptInput
from valarmind_tui.faces.tui.widgets.sidebar import Sidebar
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.safety.gate.approval import ApprovalAnswer
from valarmind_tui.session.notifications import Notifier

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
        self.notifier: Notifier | None = None
        """Calls the person back while the terminal is not focused (set once attached)."""
        self.context_tokens = 0
        """The main agent's last request and answer, in tokens (the person's status line)."""
        self.on_state_changed: Callable[[], None] = lambda: None
        """Told when what the person's status line reads may have changed."""
        self.send_next: Callable[[str], None] | None = None
        """Sends a message the run finished without reading as the next prompt (the app)."""
        self._last_status: RunStatus | None = None
        self._answers_warmed = False

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
                if event.agent_id == "main":
                    self.context_tokens = event.prompt_tokens + event.completion_tokens
                status = app.query_one(StatusBar)
                status.tokens, status.cost = event.session_tokens, event.session_cost_usd
                status.unpriced = event.session_unpriced
                self.on_state_changed()
                status.budget = self._session().spending.status_line()
            case ReviewerRan():  # a reviewer's call spends the budget too
                app.query_one(StatusBar).budget = self._session().spending.status_line()
            case ModeChanged():
                app.query_one(StatusBar).mode = event.mode
                self.on_state_changed()
            case TurnStarted(agent_id="main"):
                status = app.query_one(StatusBar)
                status.busy = True  # also for a turn a command runs (/plan Q)
                if self.notifier is not None:
                    self.notifier.turn_began()
                self.on_state_changed()  # busy
                garbage.settle_turn()
                # The prompt's frame (its message, the busy status, the agent's row) now, as
                # its request leaves: at Textual's next tick it often came with the answer's
                # first words and made that frame heavier (a short answer's last chunk ->
                # screen 11.7 -> 10.4, 11.1 -> 10.1, 11.3 -> 9.3 ms: last_chunk_bench, 15
                # prompts a side in each of three sittings).
                chat.draw_now(status, sidebar.monitor)
                if not self._answers_warmed:
                    self._answers_warmed = True
                    app.run_worker(session_start.warm_answers, thread=True,
                                   name="answers warm-up", group="session",
                                   exit_on_error=False)
            case TurnFinished(agent_id="main"):
                await chat.last_words_drawn()  # the words first, the decorations after
            case Notice():
                self._last_notice = event.message
            case ApprovalRequested():
                self._ask(event)
                if self.notifier is not None:
                    self.notifier.approval_waits(event.summary)
            case ModelFellBack(agent_id="main"):
                status = app.query_one(StatusBar)
                status.model, status.fell_back = event.model, True
                self.on_state_changed()
            case SteeringChanged(state="dropped"):
                await self._undelivered(event, chat)
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
                  | FilesRestored() | TraceRecorded() | JobChanged() | ModelFellBack()
                  | SteeringChanged() | GoalUpdated()):
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

    async def _undelivered(self, event: SteeringChanged, chat: ChatView) -> None:
        """A message the run ended without reading. Typed as the answer appeared (between its
        last words and the end of the run), it was dropped and given back, and a second Enter
        was needed: after a run that finished well it is the next prompt, shown as one;
        after a cancelled or failed run it is given back to the prompt."""
        if self._last_status == RunStatus.DONE and self.send_next is not None:
            for shown in chat.query(f"#{event.message_id}"):
                await shown.remove()
            self.send_next(event.text)
            return
        prompt = self._app.query_one(PromptInput)
        if not prompt.text.strip():
            prompt.load_text(event.text)

    async def _prompt_finished(self, event: PromptFinished) -> None:
        app = self._app
        self._last_status = event.status  # the run's messages it never read come next
        app.set_timer(0.5, self._settle_if_idle)  # while the person reads the answer
        app.query_one(StatusBar).busy = self._turn_running()
        if self.notifier is not None:
            self.notifier.turn_ended(event.status)
        self.on_state_changed()
        chat = app.query_one(ChatView)
        marker = event.text.rfind("## Quality gates") if event.gates else -1
        await chat.finish_answer(event.status, event.text[marker:] if marker >= 0 else "")
        if event.status == RunStatus.FAILED and event.text and event.text != self._last_notice:
            await chat.add(NoticeLine(event.text, "error"))
