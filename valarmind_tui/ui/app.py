"""The Textual face: a chat pane, a sidebar (tasks, agents), the prompt and a status bar.

The app reaches the core only through `Session` methods and renders the events of `session.bus`
(see bridge.py). It never imports litellm: the session builds its provider on first use.

Launch paints first: `run_app` gives the app a factory, the first frame (prompt focused, status
"starting…") is drawn before the Session and its imports (settings, agents, gate...) are built in
a thread. Prompts sent before the session is ready are queued and sent, in order, once it is.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.events import Resize
from textual.worker import Worker, WorkerState

from valarmind_tui.commands.router import SlashLine, parse, run
from valarmind_tui.context.attachments import with_attachments
from valarmind_tui.events import (
    ApprovalRequested,
    ApprovalResolved,
    CommitMessageRequested,
    CommitStepFinished,
    ModeChanged,
    Notice,
    PromptFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.safety.approval import ApprovalAnswer
from valarmind_tui.ui import environment, garbage, themes
from valarmind_tui.ui.bridge import SessionEvent, pump_events
from valarmind_tui.ui.completion import (
    complete_command,
    complete_path,
    mentioned_paths,
)
from valarmind_tui.ui.history import PromptHistory, default_history_file
from valarmind_tui.ui.screens.approval import ApprovalScreen
from valarmind_tui.ui.screens.commit_message import CommitMessageScreen
from valarmind_tui.ui.widgets.chat import ChatView
from valarmind_tui.ui.widgets.messages import NoticeLine, ShellOutput, UserMessage
from valarmind_tui.ui.widgets.prompt import Completion, PromptBar, PromptInput
from valarmind_tui.ui.widgets.sidebar import Sidebar
from valarmind_tui.ui.widgets.status import StatusBar

if TYPE_CHECKING:
    from valarmind_tui.config import Settings
    from valarmind_tui.session import Session

_log = logging.getLogger(__name__)
SIDEBAR_MIN_WIDTH = 100
"""Below this many columns the sidebar folds away (ctrl+b shows it)."""
QUIT_WINDOW_S = 2.0


class ValarMindApp(App[int]):
    """One Session, rendered."""

    CSS_PATH = "app.tcss"
    TITLE = "ValarMind"
    BINDINGS = [
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+c", "quit_twice", "Quit", priority=True, show=False),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar"),
    ]
    ollama_address: tuple[str, int] = (environment.OLLAMA_HOST, environment.OLLAMA_PORT)

    def __init__(
        self, session: Session | None = None, *, history_file: Path | None = None,
        theme_dirs: tuple[Path, ...] | None = None, remember_theme: bool = True,
        session_factory: Callable[..., Session] | None = None, project_root: Path | None = None,
        ask_trust: bool = False,
    ) -> None:
        """Give a ready `session`, or a `session_factory` run in a thread after the first frame
        (then `project_root` names the project until the session exists). With `ask_trust`,
        the factory takes the person's trust answer when the folder needed one."""
        super().__init__()
        if (session is None) == (session_factory is None):
            raise ValueError("give either a session or a session_factory")
        self.session: Session | None = session
        self._session_factory = session_factory
        self._ask_trust = ask_trust
        self.project_root = session.project_root if session else (project_root or Path.cwd())
        self.startup_error: BaseException | None = None
        self._pending: list[str] = []
        self.prompt_history = PromptHistory(history_file or default_history_file())
        self._theme_dirs = theme_dirs or (themes.shipped_themes_dir(), themes.user_themes_dir())
        self._remember_theme = remember_theme
        self._saved_theme: str | None = None
        self._sidebar_forced: bool | None = None
        self._last_ctrl_c = 0.0
        self._last_notice = ""
        self._approvals: dict[str, ApprovalScreen] = {}
        self.turn_running = False

    # -- set-up -----------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.default_variables()

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield ChatView(id="chat")
            yield Sidebar(id="sidebar")
        yield PromptBar(self.prompt_history, completer=self._complete)
        yield StatusBar(id="status")

    async def on_mount(self) -> None:
        self.set_interval(garbage.SETTLE_EVERY_S, self._settle_while_working)
        self._load_themes()
        status = self.query_one(StatusBar)
        status.branch = environment.git_branch(self.project_root)
        self.query_one(Sidebar).display = self.size.width >= SIDEBAR_MIN_WIDTH
        self.query_one(PromptInput).focus()
        if self.session is not None:
            await self.attach(self.session)
        else:
            status.starting = True
            self.call_after_refresh(self._open_session)

    def _open_session(self) -> None:
        """After the first frame: build the Session off the UI thread."""
        self.run_worker(self._build_session(), name="session", group="session",
                        exit_on_error=False)

    async def _build_session(self) -> None:
        assert self._session_factory is not None
        factory = self._session_factory
        if self._ask_trust:
            trusted = await self._trust_answer()
            if trusted is not None:
                factory = partial(self._session_factory, trusted)
        try:
            session = await asyncio.to_thread(_warm_then, factory)
        except Exception as exc:  # a config or usage error: shown by run_app after exit
            self.startup_error = exc
            self.exit(1, return_code=1)
            return
        await self.attach(session)

    async def _trust_answer(self) -> bool | None:
        """Ask whether to trust the folder's own configuration, when it has some and nobody
        decided yet; the answer is remembered. None when there was nothing to ask."""
        from valarmind_tui.trust import decide, remember, should_ask
        from valarmind_tui.ui.screens.trust import TrustScreen

        trust = await asyncio.to_thread(decide, self.project_root)
        if not should_ask(trust):
            return None
        trusted = bool(await self.push_screen_wait(TrustScreen(trust.root, trust.present)))
        await asyncio.to_thread(remember, trust.root, trusted)
        return trusted

    async def attach(self, session: Session) -> None:
        """The session exists: listen to its bus, show its state, send what was queued."""
        self.session = session
        session.message_editor.interactive = True  # /commit's message opens the editor
        self.run_worker(pump_events(session.bus, self), name="bridge", group="bridge")
        status = self.query_one(StatusBar)
        status.model, status.mode = session.model, session.mode.value
        sandbox = getattr(session, "sandbox", None)
        if sandbox is not None:
            status.sandbox, status.sandbox_alert = sandbox.status_label(), sandbox.unavailable
        status.starting = False
        self._apply_settings_theme(session.settings.theme)
        if session.history:
            await self.show_resumed(session)
        if session.offline:
            from valarmind_tui.ui.widgets.answer import OfflineBanner

            await self.query_one(ChatView).add(
                OfflineBanner(environment.offline_help(None), id="offline")
            )
            self.detect_ollama()
        self.run_worker(session.start(), name="session-start", group="session",
                        exit_on_error=False)
        self.run_worker(partial(_warm_up, session), thread=True, name="warm-up",
                        group="session", exit_on_error=False)
        pending, self._pending = self._pending, []
        for text in pending:
            await self._dispatch(text)

    async def show_resumed(self, session: Session) -> None:
        """A resumed session: its conversation again, then a notice saying so."""
        from valarmind_tui.context.transcript import resume_notice  # only for a resumed session

        transcript = await asyncio.to_thread(session.transcript)  # the event log can be large
        chat = self.query_one(ChatView)
        await chat.replay(transcript)
        await chat.add(NoticeLine(resume_notice(session.session_id or "?", transcript)))

    def _load_themes(self) -> None:
        loaded = themes.load_themes(*self._theme_dirs)
        for theme in loaded.themes:
            self.register_theme(theme)
        for error in loaded.errors:
            self.notify(error, title="Theme not loaded", severity="error", timeout=10)
        self._saved_theme = themes.saved_theme() if self._remember_theme else None
        self._apply_settings_theme(None)

    def _apply_settings_theme(self, configured: str | None) -> None:
        """The remembered theme wins over the configured one, which wins over the default."""
        for name in (self._saved_theme, configured, themes.DEFAULT_THEME):
            if name and name in self.available_themes:
                self.theme = name
                return

    @work(exclusive=True, group="ollama", exit_on_error=False)
    async def detect_ollama(self) -> None:
        host, port = self.ollama_address
        found = await environment.ollama_running(host, port)
        from valarmind_tui.ui.widgets.answer import OfflineBanner

        for banner in self.query(OfflineBanner):
            banner.update(environment.offline_help(found))

    async def on_unmount(self) -> None:
        if self.session is not None:  # the TUI ends only when the person quits it
            await self.session.close("prompt_input_exit")

    # -- events from the core ----------------------------------------------------------------
    @on(SessionEvent)
    async def _on_session_event(self, message: SessionEvent) -> None:
        try:
            chat, sidebar = self.query_one(ChatView), self.query_one(Sidebar)
        except NoMatches:  # shutting down: the widgets are gone, events still queued
            return
        event = message.event
        await chat.handle_event(event)
        sidebar.handle_event(event)
        if isinstance(event, UsageUpdated):
            status = self.query_one(StatusBar)
            status.tokens, status.cost = event.session_tokens, event.session_cost_usd
        elif isinstance(event, ModeChanged):
            self.query_one(StatusBar).mode = event.mode
        elif isinstance(event, TurnStarted) and event.agent_id == "main":
            self.query_one(StatusBar).busy = True  # also for a turn a command runs (/plan Q)
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
            self.push_screen(CommitMessageScreen(event), callback=partial(
                self.live.answer_commit_message, event.request_id))

    def _ask(self, event: ApprovalRequested) -> None:
        def answered(answer: ApprovalAnswer | None) -> None:
            self._approvals.pop(event.request_id, None)
            if answer is not None:
                self.live.answer_approval(event.request_id, answer)

        screen = ApprovalScreen(event)
        self._approvals[event.request_id] = screen
        self.push_screen(screen, callback=answered)

    def _settle_while_working(self) -> None:
        if self.working:
            garbage.settle_turn()

    async def _prompt_finished(self, event: PromptFinished) -> None:
        self.set_timer(0.5, garbage.settle_idle)  # while the person reads the answer
        self.query_one(StatusBar).busy = self.turn_running
        chat = self.query_one(ChatView)
        marker = event.text.rfind("## Quality gates") if event.gates else -1
        await chat.finish_answer(event.status, event.text[marker:] if marker >= 0 else "")
        if event.status == "failed" and event.text and event.text != self._last_notice:
            await chat.add(NoticeLine(event.text, "error"))

    # -- what the person sends ----------------------------------------------------------------
    def _complete(self, before_cursor: str) -> list[Completion]:
        found = complete_command(self.session.commands, before_cursor) if self.session else []
        return found or complete_path(self.project_root, before_cursor)

    @property
    def live(self) -> Session:
        """The session; only called on paths that run once it is attached."""
        assert self.session is not None, "the session is not ready yet"
        return self.session

    @property
    def working(self) -> bool:
        """A prompt runs: one sent from the prompt, or a turn a command runs (/plan QUESTION,
        an MCP prompt), which the session counts as busy."""
        return self.turn_running or (self.session is not None and self.session.busy)

    @on(PromptInput.Submitted)
    async def _on_submitted(self, message: PromptInput.Submitted) -> None:
        if refusal := self._refusal(message.text):
            message.prompt_input.load_text(message.text)
            self.notify(refusal, severity="warning")
            return
        if self.session is None:
            self._pending.append(message.text)
            self.notify("Starting… it will be sent as soon as the session is ready.", timeout=3)
            return
        await self._dispatch(message.text)

    def _refusal(self, text: str) -> str:
        """Why `text` cannot be sent now, or "". One prompt at a time: a second one is refused
        and left in the input, not queued (it was written before the first one's answer).
        Commands and `!shell` still run; those a running turn would undo refuse themselves
        (Command.idle_only)."""
        if not _is_prompt(text):
            return ""
        if self.working:
            return "The agent is still working: wait for the answer or press Esc."
        if self.session is None and any(_is_prompt(t) for t in self._pending):
            return ("A prompt is already waiting for the session to start: send this one after "
                    "its answer.")
        return ""

    async def _dispatch(self, text: str) -> None:
        if (slash := parse(text)) is not None:
            self.run_command(text, slash)
        elif text.startswith("!"):
            self.run_shell(text[1:].strip())
        else:
            await self._send_prompt(text)

    async def _send_prompt(self, text: str) -> None:
        files: dict[str, str] = {}
        for path in mentioned_paths(text):
            try:
                files[path] = self.live.attach(path)
            except Exception as exc:  # any refusal is the person's to read, not a crash
                self.notify(f"@{path} not attached: {exc}", severity="warning")
        await self.query_one(ChatView).add(UserMessage(text, tuple(files)))
        self.turn_running = True
        self.query_one(StatusBar).busy = True
        self.run_turn(with_attachments(text, files))

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, prompt: str) -> None:
        try:
            await self.live.submit(prompt)
        finally:
            self.turn_running = False
            self.query_one(StatusBar).busy = False

    @work(group="command", exit_on_error=False)
    async def run_command(self, line: str, slash: SlashLine) -> None:
        result = await run(self.live, slash)
        from valarmind_tui.ui import pickers
        from valarmind_tui.ui.widgets.answer import CommandOutput

        kind, _, argument = (result.action or "").partition(":")
        if kind not in pickers.LISTS_ITSELF:
            await self.query_one(ChatView).add(CommandOutput(line, result.text, result.ok))
        status = self.query_one(StatusBar)
        status.model, status.mode = self.live.model, self.live.mode.value
        if (perform := pickers.ACTIONS.get(kind)) is not None:
            await perform(self, argument)

    def apply_theme(self, name: str) -> bool:
        """Switch to `name` and remember it; an unknown name is a notification."""
        if name not in self.available_themes:
            ours = ", ".join(sorted(n for n in self.available_themes if n.startswith("valarmind")))
            self.notify(f"No theme {name!r}. Try one of: {ours}", severity="error")
            return False
        self.theme = name
        if self._remember_theme:
            themes.save_theme(name)
        return True

    @work(group="shell", exit_on_error=False)
    async def run_shell(self, command: str) -> None:
        block = ShellOutput(command)
        await self.query_one(ChatView).add(block)
        result = await self.live.run_shell(command)
        block.show(result.output, result.is_error)

    # -- keys ---------------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A background job that fails (the warm-up, MCP start-up...) is said, never swallowed."""
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            self.log.error(f"worker {event.worker.name} failed: {error!r}")
            _log.error("background task %r failed", event.worker.name, exc_info=error)
            self.notify(f"Background task {event.worker.name!r} failed: {error}",
                        severity="warning", timeout=8)

    def action_cycle_mode(self) -> None:
        if self.session is None:
            return
        self.session.set_mode(self.session.mode.next())
        self.query_one(StatusBar).mode = self.session.mode.value

    def action_cancel(self) -> None:
        """Esc: stop the running prompt, whether the prompt bar or a command started it."""
        if self.working and self.live.cancel():
            self.notify("Cancelling…", timeout=2)

    def action_quit_twice(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            self.exit(0)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_S)

    def action_toggle_sidebar(self) -> None:
        sidebar = self.query_one(Sidebar)
        self._sidebar_forced = not sidebar.display
        sidebar.display = self._sidebar_forced

    def on_resize(self, event: Resize) -> None:
        if self._sidebar_forced is None:
            self.query_one(Sidebar).display = event.size.width >= SIDEBAR_MIN_WIDTH


def _warm_up(session: Session) -> None:
    """In a thread once the session is attached: import the model library (the first prompt
    does not wait ~2.5 s for it), then freeze its objects out of the collector's sight
    (garbage.py says why)."""
    with garbage.imports_then_freeze():
        session.warm_up()


def _warm_then(factory: Callable[[], Session]) -> Session:
    """Import what the first answer needs (the Markdown widgets; pygments' lexer and colours,
    which made the first code block of an answer take 54 ms), then build the session."""
    import valarmind_tui.ui.widgets.answer  # noqa: F401
    from valarmind_tui.ui.markdown.render import MarkdownRenderer

    MarkdownRenderer({}).render("```python\npass\n```\n", 40)

    return factory()


def build_app(
    settings: Settings | Callable[..., Settings], root: Path, args: argparse.Namespace | Any,
) -> ValarMindApp:
    """The app for `valarmind`; settings (or their loader) and the Session are built in a thread
    after the first frame, so their imports are not on the launch path."""
    resume = getattr(args, "resume", None)

    def open_session(trusted: bool | None = None) -> Session:
        from valarmind_tui.session import Session

        if not callable(settings):
            loaded = settings
        else:
            loaded = settings() if trusted is None else settings(trusted)
        return Session.open(loaded, root, resume=resume)

    return ValarMindApp(session_factory=open_session, project_root=root,
                        ask_trust=callable(settings))


def run_app(
    settings: Settings | Callable[..., Settings], root: Path, args: argparse.Namespace | Any,
) -> int:
    """`valarmind`: the full-screen face. A config or usage error met while starting is raised
    after the screen is restored (the CLI prints it)."""
    app = build_app(settings, root, args)
    result = app.run()
    if app.startup_error is not None:
        raise app.startup_error
    return int(result or 0)


def _is_prompt(text: str) -> bool:
    """Text for the model: not a slash command (the router reads those) nor a `!shell` line."""
    return parse(text) is None and not text.startswith("!")
