"""The session services a running tool may reach: `ToolContext.services`, one typed object.

Tools sit below the agents and the session, so what those layers provide is described here as
Protocols (the task list, the delegator) or plain callables (the mode accessors, the checkpoint
recorder). The composition root fills in the session's part; the orchestrator adds its task list
and delegator; a specialist gets `for_specialist()`: no task list, no plan switch, and a
delegator only when its spec may spawn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Protocol

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import ModeChanged, TaskItem
from valarmind_tui.safety.gate.approval import Approver, PermissionMode

if TYPE_CHECKING:
    from valarmind_tui.lsp.manager import LspManager
    from valarmind_tui.tools.result import ToolResult
    from valarmind_tui.tools.shell.jobs import BackgroundJobs
    from valarmind_tui.tools.web.searcher import WebSearcher


@dataclass(frozen=True)
class DelegationRequest:
    """One specialist the delegate tool asks for."""

    agent: str
    task: str
    context: str = ""
    timeout_s: float | None = None
    files: tuple[str, ...] = ()
    """For a writer: the only files it may change (writers on disjoint files run at once);
    empty: any file, one writer at a time."""


class Delegation(Protocol):
    """Runs the specialists a delegate call asks for (agents.delegate.Delegator)."""

    async def delegate(
        self, requests: Sequence[DelegationRequest], parent_id: str
    ) -> ToolResult: ...


class TaskBoard(Protocol):
    """The orchestrator's task list as the task tools use it (agents.tasks.TaskList)."""

    def create(
        self, title: str, *, owner: str | None = None, depends_on: tuple[str, ...] = (),
    ) -> TaskItem: ...

    def update(
        self, task_id: str, *, status: str | None = None, owner: str | None = None,
        depends_on: tuple[str, ...] | None = None, title: str | None = None,
    ) -> TaskItem: ...

    def items(self) -> tuple[TaskItem, ...]: ...

    def render(self) -> str: ...


class ModeHolder(Protocol):
    """What holds the session's permission mode and approver (safety.gate.PermissionGate)."""

    mode: PermissionMode
    approver: Approver


@dataclass(frozen=True)
class ToolServices:
    """Everything a tool may use beyond the project root and the sandbox; None when the agent
    or the face running the tool does not offer it."""

    approver: Approver | None = None
    """Who answers exit_plan_mode's plan approval."""
    get_mode: Callable[[], PermissionMode] | None = None
    """The session's permission mode now (the delegator refuses writers in plan mode)."""
    set_mode: Callable[[PermissionMode], None] | None = None
    """Leaves plan mode once a plan is approved: only the main agent has it."""
    tasks: TaskBoard | None = None
    """The task list of task_create / task_update / task_list: only the main agent's."""
    delegator: Delegation | None = None
    """Starts specialists for the delegate tool."""
    checkpoint: Callable[[str], Awaitable[None]] | None = None
    """Records the work tree before a write or a command runs (given the tool's name), so
    /undo covers it; never raises."""
    changed: Callable[[str, Sequence[str] | None], Awaitable[None]] | None = None
    """Told after a write or a command ran: the tool's name and the paths it writes (None when
    it may write anywhere, as a command may), so /undo takes back only what this session's
    own calls changed, not another run's edits made meanwhile; never raises."""
    nested_context: Callable[[Sequence[str]], str] | None = None
    """The context files (AGENTS.md, CLAUDE.md...) of the folders these paths are in, the
    first time an agent reads or edits a file there ("" when nothing new)."""
    web_search: WebSearcher | None = None
    """The session's web search (web_search): the model's own, or a configured MCP tool."""
    command_env: Callable[[], Mapping[str, str]] | None = None
    """Variables the session's commands get beside the allowlisted ones: what SessionStart
    hooks exported through CLAUDE_ENV_FILE (hooks/env_file.py)."""
    write_scope: frozenset[str] | None = None
    """The project-relative files (or folders) a write specialist may change, when it named
    them to run beside other writers; None: any (agents.delegation.claims)."""
    jobs: BackgroundJobs | None = None
    """The session's background commands (bash's `run_in_background`, command_output,
    command_stop)."""
    lsp: LspManager | None = None
    """The session's language servers: diagnostics after an edit, the lsp_* tools."""

    @classmethod
    def for_gate(cls, gate: ModeHolder, bus: EventBus | None = None) -> ToolServices:
        """The gate's approver and mode; a mode switch is published as ModeChanged."""
        return cls(approver=gate.approver, get_mode=lambda: gate.mode,
                   set_mode=partial(switch_mode, gate, bus))

    def for_specialist(self, delegator: Delegation | None = None) -> ToolServices:
        """What a specialist inherits: the approver, the mode (read only) and the checkpoints,
        but no task list and no plan switch (only the orchestrator plans); `delegator` only
        when its spec may spawn."""
        return replace(self, tasks=None, set_mode=None, delegator=delegator, write_scope=None)


def switch_mode(gate: ModeHolder, bus: EventBus | None, mode: PermissionMode | str) -> None:
    """Set the session's permission mode and tell the faces (ModeChanged)."""
    gate.mode = PermissionMode(mode)
    if bus is not None:
        bus.publish(ModeChanged(mode=gate.mode.value))
