"""The Textual face: a chat pane, a sidebar (tasks, agents), the prompt and a status bar.

The app reaches the core only through `Session` methods and renders the events of `session.bus`
(bridge.py brings them, event_routing.py hands them to the widgets). It never imports litellm:
the session builds its provider on first use.

Launch paints first (launch.py): the app gets a factory, the first frame (prompt focused, status
"starting…") is drawn before the Session and its imports (settings, agents, gate...) are built in
a thread (session_start.py). Prompts sent before the session is ready are queued and sent, in
order, once it is. Themes: theming.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from valarmind_tui.commands.result import (
    Action,
    Clear,
    ConversationRewound,
    EditFiles,
    PickResume,
    PickRewind,
    Quit,
    Resume,
    ShowJobs,
    SwitchTheme,
)
from valarmind_tui.commands.router import SlashLine, parse, run
from valarmind_tui.context.attachments import with_attachments
from valarmind_tui.context.memory import MemoryPlace, note_text
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui import call_backs, environment, garbage, session_start, themes
from valarmind_tui.faces.tui.bridge import SessionEvent, pump_events
from valarmind_tui.faces.tui.completion import (
    complete_command,
    complete_path,
    mentioned_paths,
)
from valarmind_tui.faces.tui.dirty_rows import DirtyRowsCompositor
from valarmind_tui.faces.tui.event_routing import EventRouter
from valarmind_tui.faces.tui.history import PromptHistory, default_history_file
from valarmind_tui.faces.tui.resumed import show_resumed
from valarmind_tui.faces.tui.skeleton import SIDEBAR_MIN_WIDTH
from valarmind_tui.faces.tui.theming import AppTheming
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.messages import ShellOutput, UserMessage
from valarmind_tui.faces.tui.widgets.prompt import Completion, PromptBar, PromptInput
from valarmind_tui.faces.tui.widgets.sidebar import Sidebar
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.media.images import is_image_path

if TYPE_CHECKING:
    from valarmind_tui.context.transcript import Transcript
    from valarmind_tui.session.session import Session

_log = logging.getLogger(__name__)
QUIT_WINDOW_S = 2.0


class MainScreen(Screen):
    """The conversation's screen. The prompt has the focus from the moment it exists: keys typed
    while ValarMind starts are read as soon as Textual is, and go there (the first focusable
    widget, the chat view, would drop them)."""

    AUTO_FOCUS = "PromptInput"

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._compositor = DirtyRowsCompositor()  # a keystroke renders the prompt's row only


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
        ask_trust: bool = False, first_prompt: str | None = None,
    ) -> None:
        """Give a ready `session`, or a `session_factory` run in a thread after the first frame
        (then `project_root` names the project until the session exists). With `ask_trust`,
        the factory takes the person's trust answer when the folder needed one; a
        `first_prompt` (`valarmind "TASK"`) is sent once the session is ready."""
        super().__init__()
        if (session is None) == (session_factory is None):
            raise ValueError("give either a session or a session_factory")
        self.session: Session | None = session
        self._session_factory = session_factory
        self._ask_trust = ask_trust
        self.project_root = session.project_root if session else (project_root or Path.cwd())
        self.startup_error: BaseException | None = None
        self.exit_transcript: Transcript | None = None
        """The conversation to leave in the terminal's scrollback once the screen closes."""
        self._pending: list[str] = [first_prompt] if first_prompt else []
        self.prompt_history = PromptHistory(history_file or default_history_file())
        self.theming = AppTheming(self, theme_dirs, remember_theme)
        self.event_router = EventRouter(self, lambda: self.live, lambda: self.turn_running)
        self.event_router.send_next = self._send_after_turn
        self._after_turn: list[str] = []
        self._sidebar_forced: bool | None = None
        self._last_ctrl_c = 0.0
        self.turn_running = False

    # -- set-up -----------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.default_variables()

    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield ChatView(id="chat")
            yield Sidebar(id="sidebar")
        yield PromptBar(self.prompt_history, completer=self._complete)
        yield StatusBar(id="status")

    async def on_mount(self) -> None:
        self.set_interval(garbage.SETTLE_EVERY_S, self._settle_while_working)
        self.theming.load()
        status = self.query_one(StatusBar)
        status.branch = environment.git_branch(self.project_root)
        self.query_one(Sidebar).display = self.size.width >= SIDEBAR_MIN_WIDTH
        self.query_one(PromptInput).focus()
        if self.session is not None:
            await self.attach(self.session)
        else:
            status.starting = True
            # the model process imports litellm once the session asks (its warm-up), or at once
            # when the person types before that: a prompt typed that early waits less for it
            self.query_one(PromptInput).on_first_input = session_start.import_model_library_soon
            self.call_after_refresh(self._open_session)

    def _open_session(self) -> None:
        """After the first frame: build the Session off the UI thread, and meanwhile import the
        model library (the longest part of the warm-up: started only once the session was
        attached, it was not done when a prompt typed 3 s after launch was sent)."""
        self.run_worker(session_start.import_model_library, thread=True, name="model library",
                        group="session", exit_on_error=False)
        self.run_worker(self._build_session(), name="session", group="session",
                        exit_on_error=False)

    async def _build_session(self) -> None:
        assert self._session_factory is not None
        factory = self._session_factory
        if self._ask_trust:
            factory = await session_start.with_trust_answer(self, self.project_root, factory)
        try:
            session = await asyncio.to_thread(session_start.build, factory)
        except Exception as exc:  # a config or usage error: shown by run_app after exit
            self.startup_error = exc
            self.exit(1, return_code=1)
            return
        await self.attach(session)

    async def attach(self, session: Session) -> None:
        """The session exists: listen to its bus, show its state, send what was queued."""
        self.session = session
        self.query_one(PromptInput).on_first_input = None  # the warm-up asks from here on
        session.message_editor.interactive = True  # /commit's message opens the editor
        self.run_worker(pump_events(session.bus, self), name="bridge", group="bridge")
        call_backs.attach(self, self.event_router, session, self._write_terminal)
        status = self.query_one(StatusBar)
        status.model, status.mode = session.model, session.mode.value
        status.style = session.output_style.name if session.output_style else None
        self.query_one(PromptInput).use_vim(session.settings.editor_mode == "vim")
        sandbox = getattr(session, "sandbox", None)
        if sandbox is not None:
            status.sandbox, status.sandbox_alert = sandbox.status_label(), sandbox.unavailable
        status.starting = False
        self.theming.apply_configured(session.settings.theme)
        if session.history:
            await show_resumed(self.query_one(ChatView), session)
        if session.offline:
            from valarmind_tui.faces.tui.widgets.answer import OfflineBanner

            await self.query_one(ChatView).add(
                OfflineBanner(environment.offline_help(None), id="offline")
            )
            self.detect_ollama()
        self.run_worker(session.start(), name="session-start", group="session",
                        exit_on_error=False)
        self.run_worker(partial(session_start.warm_up, session), thread=True, name="warm-up",
                        group="session", exit_on_error=False)
        pending, self._pending = self._pending, []
        for text in pending:
            await self._dispatch(text)

    @work(exclusive=True, group="ollama", exit_on_error=False)
    async def detect_ollama(self) -> None:
        host, port = self.ollama_address
        found = await environment.ollama_running(host, port)
        from valarmind_tui.faces.tui.widgets.answer import OfflineBanner

        for banner in self.query(OfflineBanner):
            banner.update(environment.offline_help(found))

    async def on_unmount(self) -> None:
        if self.session is not None:  # the TUI ends only when the person quits it
            session = self.session
            if session.settings.scrollback_on_exit and session.history:
                from valarmind_tui.faces.tui.scrollback import SCROLLBACK_MESSAGES

                self.exit_transcript = await asyncio.to_thread(
                    session.transcript, SCROLLBACK_MESSAGES)
            await session.close("prompt_input_exit")

    # -- events from the core ----------------------------------------------------------------
    @on(SessionEvent)
    async def _on_session_event(self, message: SessionEvent) -> None:
        await self.event_router.route(message.event)

    def _settle_while_working(self) -> None:
        if self.working:
            garbage.settle_turn()

    # -- what the person sends ----------------------------------------------------------------
    def _complete(self, before_cursor: str) -> list[Completion]:
        found = (complete_command(self.session.commands, before_cursor, self.session,
                                  {"theme": self.theming.names()})
                 if self.session else [])
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

    def _write_terminal(self, data: str) -> None:
        """Bytes for the terminal itself (a bell, an OSC notification), as App.bell writes."""
        if self._driver is not None and not self.is_headless:
            self._driver.write(data)

    def on_app_focus(self) -> None:
        call_backs.focused(self.event_router, True)

    def on_app_blur(self) -> None:
        call_backs.focused(self.event_router, False)

    @on(PromptInput.Submitted)
    async def _on_submitted(self, message: PromptInput.Submitted) -> None:
        if self.working and _is_prompt(message.text):
            if self.live.steer(message.text):
                return  # queued for the agent's next step; the chat shows it (SteeringChanged)
            if self.turn_running and not self.live.busy:
                self._send_after_turn(message.text)  # the run just ended; its turn ends here
                return
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
        elif (note := note_text(text)) is not None:
            self._remember(text, note)
        else:
            await self._send_prompt(text)

    def _edit(self, action: EditFiles) -> None:
        """/memory: the person's $EDITOR on the files, the screen given back meanwhile."""
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with self.suspend():
                subprocess.run(action.command(), check=False)
        except SuspendNotSupported:
            self.notify("This terminal cannot be handed to an editor: open "
                        + ", ".join(map(str, action.paths)), severity="warning", markup=False)
        except OSError as exc:
            self.notify(visible(f"The editor did not start: {exc}"), severity="error",
                        markup=False)
        self.live.invalidate_context()  # the agents read the edited files from now on

    def _remember(self, line: str, note: str) -> None:
        """`# note`: the person picks the file; nothing is saved before they do."""
        from valarmind_tui.commands.memory import remember
        from valarmind_tui.faces.tui.screens.memory import MemoryPlacePicker
        from valarmind_tui.faces.tui.widgets.answer import CommandOutput

        async def chosen(place: MemoryPlace | None) -> None:
            if place is None:
                self.notify("Not saved.", timeout=2)
                return
            result = remember(self.live, place, note)
            await self.query_one(ChatView).add(CommandOutput(line, result.text, result.ok))

        self.push_screen(MemoryPlacePicker(note, self.live.project_root, Path.home()),
                         callback=chosen)

    async def _send_prompt(self, text: str) -> None:
        files: dict[str, str] = {}
        for path in mentioned_paths(text):
            if is_image_path(path):  # the session sends it as an image (session/prompt_images)
                continue
            try:
                files[path] = self.live.attach(path)
            except Exception as exc:  # any refusal is the person's to read, not a crash
                self.notify(visible(f"@{path} not attached: {exc}"), severity="warning",
                            markup=False)
        await self.query_one(ChatView).add(UserMessage(text, tuple(files)))
        self.turn_running = True
        status = self.query_one(StatusBar)
        status.busy, status.model, status.fell_back = True, self.live.model, False
        self.run_turn(with_attachments(text, files))

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, prompt: str) -> None:
        try:
            await self.live.submit(prompt)
        finally:
            self.turn_running = False
            self.query_one(StatusBar).busy = False
            if self._after_turn:
                self.call_later(self._send_left_over)

    def _send_after_turn(self, text: str) -> None:
        """`text` was typed to a run that finished without reading it: the next prompt, once
        the turn is over (several such messages make one prompt)."""
        self._after_turn.append(text)
        if not self.turn_running:
            self.call_later(self._send_left_over)

    async def _send_left_over(self) -> None:
        texts, self._after_turn = self._after_turn, []
        if not texts:
            return
        text = "\n\n".join(texts)
        if self.working:  # something else started meanwhile: the person sends it again
            prompt = self.query_one(PromptInput)
            if not prompt.text.strip():
                prompt.load_text(text)
            return
        await self._send_prompt(text)

    @work(group="command", exit_on_error=False)
    async def run_command(self, line: str, slash: SlashLine) -> None:
        result = await run(self.live, slash)
        from valarmind_tui.faces.tui.widgets.answer import CommandOutput

        # the pickers and the theme say their own outcome (_perform)
        if not isinstance(result.action, PickRewind | PickResume | SwitchTheme):
            await self.query_one(ChatView).add(CommandOutput(line, result.text, result.ok))
        status = self.query_one(StatusBar)
        status.model, status.mode = self.live.model, self.live.mode.value
        status.style = self.live.output_style.name if self.live.output_style else None
        await self._perform(result.action)

    async def _perform(self, action: Action | None) -> None:
        """What the TUI does after a command, besides showing what it said."""
        from valarmind_tui.faces.tui import pickers
        from valarmind_tui.faces.tui.widgets.answer import CommandOutput

        match action:
            case Quit():
                self.exit(0)
            case Clear():
                await self.query_one(ChatView).clear()
                garbage.settle_idle(force=True)  # the removed conversation was frozen
            case SwitchTheme(name=name):
                await self.query_one(ChatView).add(
                    CommandOutput(f"/theme {name.strip()}".rstrip(), *self.theming.answer(name)))
            case PickRewind():
                await pickers.pick_rewind(self, self.live)
            case PickResume():
                if chosen := await pickers.pick_resume(self, self.live):
                    await self._switch(chosen)
            case Resume(session_id=session_id):
                await self._switch(session_id)
            case EditFiles():
                self._edit(action)
            case ConversationRewound():
                await pickers.show_rewound(self, self.live)
            case ShowJobs():
                from valarmind_tui.faces.tui.screens.jobs import JobsScreen

                self.push_screen(JobsScreen(self.live.jobs))
            case None:
                pass
            case _:
                assert_never(action)

    async def _switch(self, session_id: str) -> None:
        """Another stored session (/resume): the old one's spending and agents go with it."""
        from valarmind_tui.session.switch import switch_session

        opened = await switch_session(self.live, session_id)
        self.workers.cancel_group(self, "bridge")
        await self.query_one(ChatView).clear()
        self.query_one(Sidebar).reset()
        status = self.query_one(StatusBar)
        status.tokens, status.cost = opened.totals.tokens, opened.totals.cost_usd
        status.unpriced = opened.totals.unpriced
        await self.attach(opened)

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
            self.notify(visible(f"Background task {event.worker.name!r} failed: {error}"),
                        severity="warning", timeout=8, markup=False)

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


def _is_prompt(text: str) -> bool:
    """Text for the model: not a slash command (the router reads those), a `!shell` line or a
    `# note`."""
    return parse(text) is None and not text.startswith("!") and note_text(text) is None
