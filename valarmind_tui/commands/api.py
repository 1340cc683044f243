"""What a slash command is (`Command`, its `Handler`) and what it may use of the session it
runs in (`CommandContext`): the contract a command, built-in or a plugin's, is written against.

Handlers are typed against `CommandContext`, not `Session`: the Protocol lists exactly what the
built-in commands reach, so a new command that needs more says so here. `Session` satisfies it
structurally (mypy checks it: `_session_is_a_context` in session/session.py). Where a command
only needs a corner of a bigger object (the gate's reviewers, the hooks' list, the MCP manager's
status and prompts) the Protocol names that corner, not the object: the registry too
(`CommandCatalog`), so this module and registry.py do not import each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from valarmind_tui.commands.result import CommandResult

if TYPE_CHECKING:
    from valarmind_tui.agents.commit.chain import MessageEditor
    from valarmind_tui.agents.registry import AgentRegistry
    from valarmind_tui.agents.tasks import TaskList
    from valarmind_tui.checkpoints import SessionCheckpoints
    from valarmind_tui.context.breakdown import ContextBreakdown
    from valarmind_tui.context.styles import OutputStyle
    from valarmind_tui.core.bus import EventBus
    from valarmind_tui.core.events import RunStatus
    from valarmind_tui.hooks.process import ActiveHook
    from valarmind_tui.lsp.manager import ServerStatus as LspServerStatus
    from valarmind_tui.mcp_client.manager import ServerStatus
    from valarmind_tui.mcp_client.sampling import SamplingHandler
    from valarmind_tui.media.images import ImageAttachment
    from valarmind_tui.providers.base import Provider, UsageTotals
    from valarmind_tui.repomap import RepoMapResult
    from valarmind_tui.safety.gate.approval import Approver, PermissionMode
    from valarmind_tui.safety.sandbox.wrap import Sandbox
    from valarmind_tui.settings.config import Settings
    from valarmind_tui.settings.lsp import LspSettings
    from valarmind_tui.spending.meter import Spending
    from valarmind_tui.store.sessions import SessionStore
    from valarmind_tui.tools.base import ToolResult
    from valarmind_tui.tools.shell.jobs import BackgroundJobs


Handler = Callable[["CommandContext", str], Awaitable[CommandResult]]
Choices = Callable[["CommandContext"], Sequence[str]]
"""The values a command's first argument takes, for completion (theme, model, mode...)."""


@dataclass(frozen=True)
class Command:
    name: str
    """Without the slash."""
    help: str
    """One line."""
    handler: Handler
    usage: str = ""
    idle_only: bool = False
    """Refused while a prompt runs: its end would undo the command (/clear, /compact) or the
    command runs a turn of its own."""
    choices: Choices | None = None
    """What Tab offers after `/name `; None when the argument is free text."""


class CommandCatalog(Protocol):
    """The router's and /help's view of the registry (registry.CommandRegistry)."""

    def get(self, name: str) -> Command | None: ...
    def all(self) -> list[Command]: ...
    def suggest(self, name: str) -> list[str]: ...


class TurnModels(Protocol):
    """The session's model choice (session.model_choice.ModelChoice), for a custom command's
    own `model`."""

    def for_one_turn(self, model: str | None) -> AbstractContextManager[None]: ...


class TurnAnswer(Protocol):
    """The end of a turn a command ran (/plan QUESTION, an MCP prompt)."""

    @property
    def status(self) -> RunStatus: ...
    @property
    def text(self) -> str: ...


class ReviewerSpend(Protocol):
    """/cost's view of the gate: what the model reviewers spent."""

    @property
    def reviewers(self) -> ReviewerUsage | None: ...


class ReviewerUsage(Protocol):
    def usage(self) -> Mapping[str, Any]: ...


class ActiveHooks(Protocol):
    """/hooks' view of the hook runner, and /init's Setup hooks."""

    @property
    def hooks(self) -> Sequence[ActiveHook]: ...
    async def setup(self, trigger: str) -> None: ...


class McpView(Protocol):
    """/mcp, MCP prompts and /export's view of the MCP manager."""

    @property
    def on_demand(self) -> bool: ...
    @property
    def sampling(self) -> SamplingHandler | None: ...
    def status(self) -> list[ServerStatus]: ...
    async def get_prompt(self, server: str, name: str,
                         args: dict[str, str] | None = None) -> str: ...


class LspView(Protocol):
    """/lsp's view of the language servers (lsp.manager.LspManager)."""

    @property
    def settings(self) -> LspSettings: ...
    def status(self) -> list[LspServerStatus]: ...


class CommandContext(Protocol):
    """The session as slash commands see it."""

    history: list[dict[str, Any]]
    spending: Spending
    """The session's ledger and budgets (/cost)."""
    """The conversation; /rewind --prompt cuts it."""

    @property
    def project_root(self) -> Path: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def models(self) -> TurnModels: ...
    @property
    def mode(self) -> PermissionMode: ...
    @property
    def offline(self) -> bool: ...
    @property
    def busy(self) -> bool: ...
    @property
    def commands(self) -> CommandCatalog: ...
    @property
    def bus(self) -> EventBus: ...
    @property
    def sandbox(self) -> Sandbox: ...
    @property
    def approver(self) -> Approver: ...
    @property
    def totals(self) -> UsageTotals: ...
    @property
    def gate(self) -> ReviewerSpend: ...
    @property
    def hooks(self) -> ActiveHooks: ...
    @property
    def mcp(self) -> McpView: ...
    @property
    def lsp(self) -> LspView: ...
    @property
    def checkpoints(self) -> SessionCheckpoints: ...
    @property
    def store(self) -> SessionStore | None: ...
    @property
    def tasks(self) -> TaskList: ...
    @property
    def agents(self) -> AgentRegistry: ...
    @property
    def message_editor(self) -> MessageEditor: ...
    @property
    def jobs(self) -> BackgroundJobs: ...

    def provider(self) -> Provider: ...
    def set_model(self, model: str) -> None: ...
    def set_mode(self, mode: PermissionMode | str) -> None: ...
    async def submit(self, prompt: str) -> TurnAnswer: ...
    async def side_question(self, question: str) -> str: ...
    def hold(self, stop: Callable[[], None]) -> AbstractContextManager[None]: ...
    async def run_shell(self, command: str) -> ToolResult: ...
    async def clear_with_hooks(self) -> None: ...
    async def compact(self, trigger: str = "manual") -> str: ...
    def invalidate_context(self) -> None: ...
    output_style: OutputStyle | None
    def repo_map(self, tokens: int = 1024) -> RepoMapResult: ...
    def context_breakdown(self) -> ContextBreakdown: ...
    def attach_image(self, path: str) -> ImageAttachment: ...
    @property
    def pending_images(self) -> list[ImageAttachment]: ...

