"""The plain face (`valarmind --plain`): a line-mode REPL for dumb terminals, SSH, screen readers.

Same Session, slash commands and approvals as the TUI; streamed text is printed as it arrives.
With a terminal it reads lines with prompt-toolkit (history, /command completion, Shift+Tab
cycles the mode); without one (stdin piped) it reads plain lines, so it can be scripted.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, assert_never

from valarmind_tui.agents.goal.state import progress_line
from valarmind_tui.commands.memory import remember
from valarmind_tui.commands.result import (
    Clear,
    CommandResult,
    ConversationRewound,
    EditFiles,
    PickResume,
    PickRewind,
    Quit,
    Resume,
    ShowJobs,
    SwitchTheme,
)
from valarmind_tui.commands.router import parse, run
from valarmind_tui.context.memory import PLACE_HELP, PLACES, memory_file, note_text
from valarmind_tui.context.transcript import (
    AnswerItem,
    SummaryItem,
    ToolItem,
    UserItem,
    resume_notice,
)
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
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.repl.output import ReplOutput
from valarmind_tui.faces.repl.pickers import pick_resume, pick_rewind
from valarmind_tui.faces.repl.readers import LineReader, PipeReader, PromptToolkitReader
from valarmind_tui.safety.gate.approval import ApprovalAnswer
from valarmind_tui.session.notifications import Notifier
from valarmind_tui.session.records import offline_help
from valarmind_tui.session.switch import switch_session

if TYPE_CHECKING:
    from valarmind_tui.session.session import Session
    from valarmind_tui.settings.config import Settings

_GATE_END = {RunStatus.UNVERIFIED: "a required quality gate could not run",
             RunStatus.REJECTED: "a required quality gate failed"}
_STATUS_WORD = {"ok": "done", "error": "failed", "denied": "denied", "cancelled": "cancelled"}
_STEERING = {"queued": "queued for the next step", "delivered": "delivered",
             "dropped": "not delivered: the run ended first"}
_DRAFTED = {"model": "Commit message, written by the model from the staged diff:",
            "files": "Commit message, drafted from the changed files (no model wrote it):"}
RESUME_SHOWN_MESSAGES = 12
"""On resume the REPL reprints about the last three exchanges."""


class Repl:
    """Reads lines, routes them to the Session, prints the events it publishes."""

    def __init__(self, session: Session, reader: LineReader, out: TextIO) -> None:
        self.session = session
        self.reader = reader
        self._approvals: asyncio.Queue[ApprovalRequested | CommitMessageRequested] = (
            asyncio.Queue())
        self.output = ReplOutput(out)
        self._pump_task: asyncio.Task[None] | None = None
        self.notifier = Notifier(session.settings, self.output.terminal)
        self._side_questions: set[asyncio.Task[None]] = set()

    # -- output -------------------------------------------------------------------------------
    def write(self, text: str) -> None:  # all the REPL prints: controls shown, never emitted
        self.output.write(text)

    def line(self, text: str) -> None:
        """Write `text` on a line of its own."""
        self.output.line(text)

    def render(self, event: Event) -> None:
        match event:
            case TextDelta(agent_id="main"):
                self.write(event.text)
            case ToolCallStarted():
                who = "" if event.agent_id == "main" else f"[{event.agent_id}] "
                self.line(f"⏺ {who}{event.name} {_arguments(event.arguments)}")
            case ToolCallFinished():
                first = (event.output.strip().splitlines() or [""])[0][:120]
                self.line(f"  ↳ {_STATUS_WORD.get(event.status, event.status)}: {first}")
                if event.diff:
                    self.line(event.diff.rstrip("\n"))
            case Notice():
                self.line(f"[{event.level}] {event.message}")
            case SteeringChanged():
                self.line(f"[{_STEERING[event.state]}] {event.text}")
            case ModelFellBack():
                self.line(f"[fallback] {event.failed_model} failed ({event.reason}); "
                          f"{event.model} answers")
            case TurnStarted(agent_id="main"):
                self.notifier.turn_began()
            case ApprovalRequested():
                self._approvals.put_nowait(event)
                self.notifier.approval_waits(event.summary)
            case CommitMessageRequested():
                self._approvals.put_nowait(event)
            case CommitStepFinished():
                detail = f" ({event.detail})" if event.detail else ""
                self.line(f"commit · {event.step}: {event.outcome.replace('_', ' ')}{detail}")
            case PromptFinished(agent_id="main"):
                self._prompt_finished(event)
                self.notifier.turn_ended(event.status)
            case JobChanged(state="running"):
                self.line(f"⏵ {event.handle} started in the background: {event.command} "
                          "(/jobs)")
            case JobChanged():
                self.line(f"⏹ {event.handle} {event.state} (exit {event.exit_code}): "
                          f"{event.command}")
            case GoalUpdated():
                self.line(progress_line(event))
            case (TextDelta() | PromptFinished() | ReasoningDelta() | TurnStarted()
                  | TurnFinished() | ApprovalResolved() | AgentSpawned() | AgentFinished()
                  | TaskListChanged() | UsageUpdated() | ModeChanged() | HookRan()
                  | CheckpointCreated() | FilesRestored() | ReviewerRan() | TraceRecorded()):
                pass  # a line-mode face prints the main answer, tool calls and what it asks
            case _:
                assert_never(event)

    def _prompt_finished(self, event: PromptFinished) -> None:
        marker = event.text.rfind("## Quality gates") if event.gates else -1
        if marker >= 0:  # the gates' report is not streamed
            self.line("\n" + event.text[marker:])
        if event.status == RunStatus.CANCELLED:
            self.line("[cancelled: the answer above is partial]")
        elif event.status == RunStatus.FAILED and event.text:
            self.line(f"[failed] {event.text}")
        elif event.status == RunStatus.INCOMPLETE:
            self.line("[incomplete]")
        elif event.status in _GATE_END:
            self.line(f"[{event.status}: {_GATE_END[event.status]}]")
        elif event.status == RunStatus.BUDGET:
            self.line(f"[budget] {event.text.removeprefix('## BUDGET').strip()}")
        elif not self.output.at_line_start:
            self.write("\n")
        spent = self.session.spending.status_line()
        if spent:  # spent / budget after each answer, as the TUI's status bar shows it
            self.line(f"[budget: {spent}]")

    async def _pump(self) -> None:
        subscription = self.session.bus.subscribe()
        try:
            async for event in subscription:
                self.render(event)
        finally:
            subscription.close()

    def show_resumed(self) -> None:
        """The last exchanges of a resumed session, one line per prompt and tool call."""
        transcript = self.session.transcript(RESUME_SHOWN_MESSAGES)
        for item in transcript.items:
            if isinstance(item, UserItem):
                self.line("> " + _clipped(item.text, 3))
            elif isinstance(item, AnswerItem):
                self.line(_clipped(item.text, 12))
            elif isinstance(item, ToolItem):
                status = _STATUS_WORD.get(item.status, item.status)
                self.line(f"⏺ {item.name} {_arguments(item.arguments)} · {status}")
            elif isinstance(item, SummaryItem):
                self.line(f"[summary] {_clipped(item.text, 3)}")
        self.line(resume_notice(self.session.session_id or "?", transcript))

    # -- approvals ----------------------------------------------------------------------------
    async def ask(self, request: ApprovalRequested) -> ApprovalAnswer:
        """Show what will happen and read y / a / n / f."""
        asker = ("" if request.agent_id in ("main", "user")
                 else f" (asked by the {request.agent_id} agent)")
        self.line(f"Allow {request.tool}?{asker} {request.summary}")
        if request.reason:
            self.line(f"  reason: {request.reason}")
        if request.command is not None:
            self.line(f"  $ {request.command}" + (f"   (in {request.cwd})" if request.cwd else ""))
        if request.path:
            self.line(f"  path: {request.path}")
        for shown in filter(None, ((request.diff or "").rstrip("\n"), request.warning)):
            self.line(shown)
        while True:
            choice = await self.reader.read("[y] allow once, [a] always, [n] deny, [f] feedback: ")
            choice = (choice or "n").strip().lower()[:1]
            if choice == "y":
                return ApprovalAnswer("allow_once")
            if choice == "n":
                return ApprovalAnswer("deny")
            if choice == "f":
                feedback = await self.reader.read("Feedback for the agent: ")
                return ApprovalAnswer("deny", feedback=(feedback or "").strip() or None)
            if choice == "a":
                scope = await self.reader.read("Always allow for this [s]ession or this "
                                               "[p]roject (.valarmind/config.toml)? ")
                scope = (scope or "").strip().lower()[:1]
                if scope in ("s", "p"):
                    return ApprovalAnswer("allow_session" if scope == "s" else "allow_project")

    # -- the loop -----------------------------------------------------------------------------
    async def run_task(self, coro: Any, *, steering: bool = False) -> Any:
        """Await `coro`, answering approvals it raises on the way; with `steering` (a prompt,
        on a terminal), lines typed meanwhile go to the agent's next step."""
        task = asyncio.ensure_future(coro)
        typed: asyncio.Future[str | None] | None = None
        while not task.done():
            getter = asyncio.ensure_future(self._approvals.get())
            if steering and typed is None and isinstance(self.reader, PromptToolkitReader):
                self.output.hold()
                typed = asyncio.ensure_future(self.reader.read_while_working())
            waiting: set[asyncio.Future[Any]] = {task, getter, *([typed] if typed else [])}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if typed is not None and typed.done():
                self._typed_while_working(typed.result())
                typed = None
            if getter.done():
                if typed is not None:  # the approval reads the terminal now
                    typed.cancel()
                    await asyncio.wait({typed})
                    typed = None
                self.output.release()
                request = getter.result()
                await asyncio.sleep(0)  # let the pump print what came before
                if isinstance(request, CommitMessageRequested):
                    edited = await self.reader.edit(_DRAFTED[request.drafted_by],
                                                    request.message)
                    self.session.answer_commit_message(request.request_id, edited)
                else:
                    self.session.answer_approval(request.request_id, await self.ask(request))
            else:
                getter.cancel()
        if typed is not None:
            typed.cancel()
            await asyncio.wait({typed})
        self.output.release()
        return task.result()

    def _typed_while_working(self, line: str | None) -> None:
        """A line typed while the agent works: a message for its next step, `/btw`, or (None:
        Ctrl+C) cancel."""
        if line is None:
            self.session.cancel()
            return
        text = line.strip()
        if not text:
            return
        slash = parse(text)
        if slash is not None and slash.name == "btw":
            task = asyncio.ensure_future(self._side_question(slash))
            self._side_questions.add(task)
            task.add_done_callback(self._side_questions.discard)
        elif slash is not None or text.startswith("!"):
            self.line("[while the agent works only a message or /btw QUESTION; "
                      "Ctrl+C cancels]")
        elif not self.session.steer(text):
            self.line("[the agent had finished: send it again]")

    async def _side_question(self, slash: Any) -> None:
        result = await run(self.session, slash)
        self.line(f"[btw] {result.text}")

    async def handle(self, line: str) -> bool:
        """Run one input line; False means quit."""
        text = line.strip()
        if not text:
            return True
        if (slash := parse(text)) is not None:
            return await self.after_command(await self.run_task(run(self.session, slash)))
        if text.startswith("!"):
            result = await self.run_task(self.session.run_shell(text[1:].strip()))
            self.line(result.output.rstrip("\n") or "(no output)")
            return True
        if (note := note_text(text)) is not None:
            await self.remember(note)
            return True
        await self.run_task(self.session.submit(text), steering=True)
        return True

    async def remember(self, note: str) -> None:
        """`# note`: shown with the three files it can go to; saved only where the person says."""
        home = Path.home()
        self.line(f"Remember “{note}” where?")
        for number, place in enumerate(PLACES, 1):
            _path, shown = memory_file(place, self.session.project_root, home)
            self.line(f"  {number}  {shown}  ({PLACE_HELP[place]})")
        answer = ((await self.reader.read("1, 2 or 3 (Enter: don't save)? ")) or "").strip()
        if answer not in ("1", "2", "3"):
            self.line("Not saved.")
            return
        self.line(remember(self.session, PLACES[int(answer) - 1], note, home).text)

    async def after_command(self, result: CommandResult) -> bool:
        """Show what a command said and perform its action; False means quit."""
        action = result.action
        if not isinstance(action, PickRewind | PickResume):  # a picker lists the choices
            self.line(result.text)
        match action:
            case Quit():
                return False
            case PickRewind():
                await pick_rewind(self.session, self.reader, self.line)
            case PickResume():
                if (chosen := await pick_resume(self.session, self.reader, self.line)):
                    await self.switch(chosen)
            case Resume(session_id=session_id):
                await self.switch(session_id)
            case ConversationRewound():
                self.line(f"Conversation rewound: {len(self.session.history)} messages kept.")
            case EditFiles():
                self.edit(action)
            case Clear() | SwitchTheme() | ShowJobs() | None:
                pass  # a line-mode face has no view to empty, no themes, no live screen
            case _:
                assert_never(action)
        return True

    def edit(self, action: EditFiles) -> None:
        """/memory: the person's $EDITOR on the files, in this terminal."""
        import subprocess

        try:
            subprocess.run(action.command(), check=False)
        except OSError as exc:
            self.line(f"The editor did not start: {exc}")
        self.session.invalidate_context()

    async def switch(self, session_id: str) -> None:
        """Another stored session (/resume): open it and print its last exchanges."""
        self.use(await switch_session(self.session, session_id))
        await self.session.start()
        self.show_resumed()

    def use(self, session: Session) -> None:
        """Print another session's events from now on (/resume switched to it)."""
        if self._pump_task is not None:
            self._pump_task.cancel()
        self.session = session
        session.message_editor.interactive = True
        self._pump_task = asyncio.create_task(self._pump())

    async def run(self, first_prompt: str | None = None) -> int:
        """The loop; `first_prompt` (`valarmind --plain "TASK"`) is handled before the first
        line is read."""
        self.session.message_editor.interactive = True
        self._pump_task = asyncio.create_task(self._pump())
        await asyncio.sleep(0)
        await self.session.start()
        if self.session.offline:
            self.line(offline_help())
        if self.session.history:
            self.show_resumed()
        self.line(f"model: {self.session.model or 'none'} · mode: {self.session.mode.value} · "
                  "/help for commands, /quit to leave")
        loop = asyncio.get_running_loop()
        main = asyncio.current_task()

        def interrupted() -> None:  # Ctrl+C: cancel the running turn, or quit when idle
            if not self.session.cancel() and main is not None:
                main.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, interrupted)
        reason = "other"  # SessionEnd's reason: the person left at the prompt, or not
        try:
            given = [first_prompt] if first_prompt else []
            while True:
                line = given.pop() if given else await self.reader.read("> ")
                if line is None or not await self.handle(line):
                    reason = "prompt_input_exit"
                    break
        except asyncio.CancelledError:
            reason = "prompt_input_exit"
            return 130
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
            await self.session.close(reason)
            if self._pump_task is not None:
                self._pump_task.cancel()
        return 0


def ask_trust(root: Path, read: Callable[[str], str] = input) -> bool | None:
    """Ask once whether to trust the folder's own configuration, and again when a trusted
    folder's configuration changed since (showing what changed); the answer is remembered.
    None when there is nothing to ask (no repository configuration, or already decided)."""
    from valarmind_tui.settings.trust.decision import CHANGED, answer, decide, should_ask

    trust = decide(root)
    if not should_ask(trust):
        return None
    if trust.how == CHANGED and trust.changes is not None:
        print(visible(f"{root}: its configuration {CHANGED} ({trust.changes.names()}):"))
        print(visible(trust.changes.diff))
        print("None of it loads until you trust it again.")
        question = "Trust it as it is now? [y/N] "
    else:
        print(visible(f"{root} has its own ValarMind configuration: {', '.join(trust.present)}."))
        print("It can add agents, MCP servers and plugins (code that runs on your machine), "
              "but never change the mode, endpoints, keys or sandbox.")
        question = "Trust this folder? [y/n, Enter: not now] "
    try:
        said = read(question).strip().lower()
    except EOFError:
        said = ""
    trusted = True if said in ("y", "yes") else False if said in ("n", "no") else None
    if answer(trust, trusted):
        print("Trusted.")
        return True
    if trusted is None:  # not now: nothing remembered
        print("Its configuration is skipped this time; you will be asked again.")
    elif trust.how == CHANGED:
        print("Its configuration is skipped this time; you will be asked again "
              "(/trust no stops loading it).")
    else:
        print("Not trusted: its configuration is skipped "
              "(change with /trust yes or `valarmind trust`).")
    return False


def _arguments(arguments: dict[str, Any]) -> str:
    return " ".join(f"{k}={v!r}" for k, v in arguments.items())[:120]


def _clipped(text: str, lines: int) -> str:
    rows = text.strip().splitlines()
    if len(rows) <= lines:
        return "\n".join(rows)
    return "\n".join(rows[:lines]) + f"\n… {len(rows) - lines} more lines"


def run_repl(
    settings: Settings | Callable[..., Settings], root: Path, args: Any
) -> int:
    """`valarmind --plain` (and any run whose stdout is not a terminal). `settings` may be a
    loader taking the trust answer: on a terminal, a folder whose own configuration nobody
    decided on is asked about first."""
    from valarmind_tui.session.wiring import open_session

    if callable(settings):
        settings = settings(ask_trust(root) if sys.stdin.isatty() else None)

    async def main() -> int:
        session = open_session(settings, root, resume=getattr(args, "resume", None))
        if sys.stdin.isatty():
            reader: LineReader = PromptToolkitReader(session)
        else:
            reader = PipeReader(sys.stdin, sys.stdout)
        return await Repl(session, reader, sys.stdout).run(getattr(args, "first_prompt", None))

    return asyncio.run(main())
