"""One conversation: the object every face drives.

Faces call `submit`, `run_command`, `run_shell`, `cancel`, `answer_approval`, `set_mode`,
`set_model`, and render the events they receive from `session.bus`. Nothing here knows which face
is running.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.agents.listings import setup_listings
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.agents.side_question import answer_side_question
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.agents.tasks import TaskList
from valarmind_tui.checkpoints import SessionCheckpoints
from valarmind_tui.commands.agent import register_mcp_prompts
from valarmind_tui.commands.registry import CommandRegistry, CommandResult
from valarmind_tui.commands.router import run_line
from valarmind_tui.context.attachments import read_attachment
from valarmind_tui.context.breakdown import ContextBreakdown, context_breakdown
from valarmind_tui.context.compaction import compact as compact_history
from valarmind_tui.context.history_size import ReportedSize, should_compact
from valarmind_tui.context.project_context import ContextLoader
from valarmind_tui.context.prompt_builder import build_agent_prompt
from valarmind_tui.context.styles import OutputStyle, style_section
from valarmind_tui.context.transcript import SHOWN_MESSAGES, Transcript
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import HookStopped
from valarmind_tui.core.events import Notice, RunStatus
from valarmind_tui.hooks import HookRunner
from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.mcp_client.catalog import schemas_by_source, servers_section
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.media.images import ImageAttachment, load_persons_image, prepare_image
from valarmind_tui.plugins.manager import PluginContributions
from valarmind_tui.providers.base import Provider, UsageTotals
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.providers.model_info import (
    DEFAULT_CONTEXT_WINDOW,
    context_window,
    supports_vision,
)
from valarmind_tui.repomap import RepoMapResult
from valarmind_tui.repomap.refine import build_map, stop_refiners
from valarmind_tui.safety.gate.approval import ApprovalAnswer, Approver, PermissionMode
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.safety.secrets import SecretMasker
from valarmind_tui.session.approver import InteractiveApprover
from valarmind_tui.session.model_choice import ModelChoice
from valarmind_tui.session.prompt_images import images_for_prompt
from valarmind_tui.session.prompt_run import PromptResult, run_prompt
from valarmind_tui.session.records import export_transcript, stored_transcript
from valarmind_tui.session.run_control import RunControl
from valarmind_tui.settings.config import Settings
from valarmind_tui.setup.skills import Skill
from valarmind_tui.spending.meter import Spending
from valarmind_tui.store.sessions import SessionStore
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.registry import ToolRegistry
from valarmind_tui.tools.services import ToolServices, switch_mode
from valarmind_tui.tools.shell.jobs import BackgroundJobs, background_command, reap_notice

if TYPE_CHECKING:
    from valarmind_tui.agents.commit.chain import MessageEditor


@dataclass(eq=False, repr=False, kw_only=True)
class Session:
    """One conversation with the project; see the module docstring for the faces' contract.

    It takes its parts: `session.wiring` is the only place they are built (`build_session`,
    `open_session`)."""

    settings: Settings
    project_root: Path
    bus: EventBus
    sandbox: Sandbox
    approver: Approver
    gate: PermissionGate
    tools: ToolRegistry
    agents: AgentRegistry
    commands: CommandRegistry
    plugins: PluginContributions
    mcp: McpManager
    hooks: HookRunner
    models: ModelChoice
    """The model of later prompts and its provider."""
    startup_notices: list[str]
    """Warnings for the person, published once a face listens (`start`)."""
    store: SessionStore | None
    session_id: str | None
    """Its id in the store; None when it is not stored."""
    history: list[dict[str, Any]]
    totals: UsageTotals
    checkpoints: SessionCheckpoints
    project_context: ContextLoader
    """The project context (VALARMIND.md...) for agents' prompts, cached."""
    tasks: TaskList
    message_editor: MessageEditor
    services: ToolServices
    """What the session's tools reach: the approver, the mode and the checkpoints."""
    secrets: SecretMasker
    skills: list[Skill]
    output_style: OutputStyle | None = None
    """How the main agent writes (/style); None: its own way."""
    jobs: BackgroundJobs
    """Its background commands (bash's run_in_background, `!cmd &`, /jobs): they end with it."""
    spending: Spending = field(default_factory=Spending)
    """Every model call in the ledger, and the budgets (spending/meter.py): a runner opens
    its own scope (`open_scope`), sets the round (`set_round`), asks `check()`."""
    lsp: LspManager
    """The language servers, started on first use; /lsp shows them."""
    hook_context: str = field(default="", init=False)
    """What SessionStart hooks said, joined to the next prompt."""
    window: int = field(default=DEFAULT_CONTEXT_WINDOW, init=False)
    """The model's context window, once a prompt asked for it (the skill listing's budget)."""
    reported_size: ReportedSize | None = field(default=None, init=False)
    """The tokens the provider last reported for the history (context/history_size.py)."""
    turn_messages: list[dict[str, Any]] = field(default_factory=list, init=False)
    """The running turn's messages, for hooks' transcript."""
    pending_images: list[ImageAttachment] = field(default_factory=list, init=False)
    """Images `/image` or an ACP prompt attached, sent with the next prompt."""
    _ended: bool = field(default=False, init=False)
    _control: RunControl = field(init=False)

    def __post_init__(self) -> None:
        self._control = RunControl(self.bus)

    async def start(self) -> None:
        """Call once a face listens to the bus: reports plugin warnings, then starts the
        configured MCP servers in parallel (their tools join the registry).

        Failures are Notices and a status in /mcp, never exceptions."""
        for warning in self.startup_notices:
            self.bus.publish(Notice(level="warning", message=warning))
        reaped = await asyncio.to_thread(reap_notice)
        if reaped:
            self.bus.publish(Notice(level="warning", message=reaped))
        self.checkpoints.start_warm_up()
        self.hook_context = await self.hooks.session_start(
            "resume" if self.history else "startup")
        if self.mcp.names():
            await self.mcp.start()
            window = await asyncio.to_thread(context_window, self.model)  # may import litellm
            self.mcp.schema_budget = int(window * self.settings.mcp.schema_share)
            self.mcp.register_into(self.tools)
            register_mcp_prompts(self.commands, self.mcp.prompts())

    # -- state the faces read -------------------------------------------------------------
    @property
    def mode(self) -> PermissionMode:
        return self.gate.mode

    @property
    def model(self) -> str | None:
        return self.models.model

    @property
    def offline(self) -> bool:
        """True when no model is configured: deterministic commands still work."""
        return self.models.model is None

    @property
    def busy(self) -> bool:
        return self._control.busy

    def hold(self, stop: Callable[[], None]) -> contextlib.AbstractContextManager[None]:
        """Hold the session across several prompts (a goal's rounds and checks): meanwhile it
        is busy to everyone else, its holder's own prompts run, and `cancel` calls `stop`
        when no prompt is running."""
        return self._control.hold(stop)

    def set_mode(self, mode: PermissionMode | str) -> None:
        switch_mode(self.gate, self.bus, mode)

    def set_model(self, model: str) -> None:
        self.models.choose(model)

    # -- intents --------------------------------------------------------------------------
    async def submit(self, prompt: str) -> PromptResult:
        """Run the prompt through the main agent; events stream on the bus meanwhile. One
        prompt at a time: while one runs, another is refused (not queued) with a Notice. Never
        reads a slash: faces route lines first (commands/router.py)."""
        if self._control.refuses_a_prompt():
            message = ("The agent is still working: wait for the answer or press Esc to "
                       "cancel it.")
            self.bus.publish(Notice(level="warning", message=message))
            return PromptResult(RunStatus.FAILED, message)
        return await self._control.run(lambda steering: run_prompt(self, prompt, steering))

    def steer(self, text: str) -> bool:
        """A message typed while a prompt runs: queued, and delivered to the main agent at its
        next model request (agents/steering.py). False when no prompt runs."""
        return self._control.steer(text)

    async def side_question(self, question: str) -> str:
        """/btw: `question` answered from the conversation as it stands (the running turn's
        steps included), in one model call without tools; nothing of it joins the history."""
        answer, usage = await answer_side_question(
            self.provider(), self.model, [*self.history, *self.turn_messages], question)
        self.totals.add(usage)
        return answer

    def system_prompt(self, spec: AgentSpec, *, repo_map: str = "") -> str:
        """The agent's prompt plus what it should know about this project."""
        project = "" if spec.exclude_project_context else self.project_context.load().text
        state = f"Project root: {self.project_root}\nPermission mode: {self.mode.value}"
        servers = servers_section(self.mcp, self.tools, spec.name, spec.tools)
        listings = (servers, *setup_listings(spec, self.skills, self.agents, self.window),
                    style_section(self.output_style) if spec.name == "orchestrator" else "")
        state += "".join(f"\n\n{text}" for text in listings if text)
        return build_agent_prompt(
            spec, project_context=project, repo_map=repo_map, working_state=state
        ).text

    def invalidate_context(self) -> None:
        """Forget the cached project context (after VALARMIND.md was written)."""
        self.project_context.invalidate()

    def repo_map(
        self, tokens: int = 1024, chat_files: tuple[str, ...] = (), idents: tuple[str, ...] = ()
    ) -> RepoMapResult:
        """Build the repo map (blocking: faces run it in a thread). The disk cache keeps it warm;
        a cold big tree gives a draft, refined in the background (`repomap/refine.py`)."""
        return build_map(self.project_root, tokens, chat_files, idents)[0]

    async def compact(self, trigger: str = "manual") -> str:
        """Summarize older history (by the model; without one, old tool outputs are cut).
        PreCompact hooks run first (`trigger`: manual for /compact, auto when the context
        is full)."""
        await self.hooks.pre_compact(trigger)
        provider = None if self.offline else self.provider()
        with calls_for(kind="compaction"):
            self.history, notice = await compact_history(self.history, provider, self.model)
        self.bus.publish(Notice(level="info", message=notice))
        return notice

    async def compact_if_needed(self) -> None:
        """After `window` was asked of the model (off the loop: litellm may be importing)."""
        if self.history and should_compact(self.history, self.window, self.reported_size,
                                           self.model):
            await self.compact("auto")

    def context_breakdown(self) -> ContextBreakdown:
        return context_breakdown(
            system_prompt=self.system_prompt(self.agents.get("orchestrator")),
            project_context=self.project_context.load().text,
            context_files=[(f.path, f.text) for f in self.project_context.load().files],
            tool_schemas=schemas_by_source(self.tools), history=self.history,
            context_window=context_window(self.model),
            secrets_masked=(self.secrets.values_masked, self.secrets.occurrences),
        )

    async def run_command(self, line: str) -> CommandResult:
        """Run a slash line through the router."""
        return await run_line(self, line)

    async def run_shell(self, command: str) -> ToolResult:
        """`!command` and /qa from a face: the bash tool, through the gate like any agent call.
        Checkpointed like one: when no prompt runs, the command is a turn of its own (/undo).
        `!command &` starts it in the background (/jobs)."""
        tool = self.tools.get("bash")
        if tool is None:
            return ToolResult.error("the bash tool is not available")
        command, background = background_command(command)
        params = tool.parse({"command": command, "run_in_background": background})
        ctx = ToolContext(project_root=self.project_root, agent_id="user", sandbox=self.sandbox,
                          services=self.services)
        own_turn = not self.busy
        if own_turn:
            self.checkpoints.begin(f"!{command}")
        try:
            status, result = await run_gated(tool, params, ctx, self.gate,
                                             AgentPermissions.full())
        except HookStopped as exc:  # nothing to stop but this command
            return ToolResult.error(str(exc))
        finally:
            if own_turn:
                await self.checkpoints.end()
        if status == "denied":  # it never ran: /qa and the like say "not run", not "failed"
            return ToolResult(result.output, is_error=True, data={"denied": True})
        return result

    def cancel(self) -> bool:
        """Stop the running prompt (stream stopped, tools killed, partial answer kept)."""
        if isinstance(self.approver, InteractiveApprover):
            self.approver.cancel_all()
        return self._control.cancel()

    def answer_approval(self, request_id: str, answer: ApprovalAnswer) -> bool:
        if isinstance(self.approver, InteractiveApprover):
            return self.approver.answer(request_id, answer)
        return False

    def answer_commit_message(self, request_id: str, message: str | None) -> bool:
        """A face's answer to CommitMessageRequested: the edited message, None to cancel."""
        return self.message_editor.answer(request_id, message)

    def attach(self, path: str) -> str:
        """The text of a project file for an `@path` mention (checked like any tool path)."""
        return read_attachment(self.project_root, path)

    def attach_image(self, path: str) -> ImageAttachment:
        """Read an image the person named (media.images.load_persons_image) for the next
        prompt."""
        image = load_persons_image(self.project_root, path)
        self.pending_images.append(image)
        return image

    def add_image(self, data: bytes, name: str) -> ImageAttachment:
        """An image given as bytes (an ACP image block) for the next prompt."""
        image = prepare_image(data, name)
        self.pending_images.append(image)
        return image

    async def sees_images(self, model: str | None = None) -> bool:
        """Whether `model` (else the session's) reads images: `[images] vision`, else
        LiteLLM's model information (asked off the loop)."""
        if self.settings.images.vision is not None:
            return self.settings.images.vision
        return await asyncio.to_thread(supports_vision, model or self.model)

    async def prompt_images(self, prompt: str) -> list[ImageAttachment]:
        pending, self.pending_images = self.pending_images, []
        return await images_for_prompt(prompt, pending, self.project_root, self.bus,
                                       self.sees_images, self.model)

    def transcript(self, limit: int = SHOWN_MESSAGES) -> Transcript:
        """The stored conversation as the faces show it again (blocking: reads the event log,
        which can be large)."""
        return stored_transcript(self.store, self.session_id, self.history, limit)

    def clear(self) -> None:
        """Forget the conversation (and the denials counted in it)."""
        self.history = []
        self.gate.reset_denials()

    async def clear_with_hooks(self) -> None:
        """/clear as Claude Code does it: SessionEnd (reason `clear`, the old transcript), the
        conversation forgotten, SessionStart (source `clear`; its context joins the next
        prompt). For hooks what follows is a new session: a new `session_id` and transcript."""
        await self.hooks.session_end("clear")
        self.clear()
        self.hooks.session_id = uuid.uuid4().hex
        self.hook_context = await self.hooks.session_start("clear")

    def warm_up(self) -> None:
        """Import the model library and run its request path once (providers/warm.py), so the
        first prompt does not wait for them (the tokenizer waits for a long history:
        `prompt_run.run_prompt`). Blocking: a face calls it off its UI thread."""
        self.project_context.load()  # the first prompt's system prompt reads it
        if not self.offline:
            from valarmind_tui.providers.warm import warm_model_path

            warm_model_path(self.model)

    def provider(self) -> Provider:
        """The model provider, built on first use (this is where litellm gets imported)."""
        return self.models.provider()

    async def close(self, reason: str = "other") -> None:
        """End the session; `reason` is SessionEnd's: `prompt_input_exit` when the person left
        at the prompt (/quit, Ctrl+D), `other` otherwise."""
        self.cancel()
        await self.jobs.close()  # before the store closes: their ends are logged
        if not self._ended:
            self._ended = True
            await self.hooks.session_end(reason)
        await self.mcp.close()
        await self.lsp.close()
        stop_refiners()  # a map's background work ends with the session that asked for it
        if self.store is not None:
            self.store.close()

    # -- persistence ----------------------------------------------------------------------
    def export_transcript(self) -> str:
        """The conversation so far as JSONL, for hooks' `transcript_path`."""
        return export_transcript(self.secrets.mask_data(  # with the turn, for a Stop hook
            [*self.history, *self.turn_messages], cached=True), self.hooks.session_id,
            self.project_root)

    def persist_message(self, message: dict[str, Any]) -> None:
        """Keep a message of the running turn (hooks' transcript) and store it."""
        self.turn_messages.append(message)
        if self.store is not None and self.session_id is not None:
            self.store.append_message(self.session_id, message)


if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext

    def _session_is_a_context(session: Session) -> CommandContext:
        """Never called: mypy fails here when Session stops satisfying the Protocol."""
        return session
