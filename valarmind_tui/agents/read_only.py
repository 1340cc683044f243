"""A read-only specialist stack for work outside a prompt (/review, /init): plan mode, so
nothing the specialist calls can change the project."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.agents.delegation.delegate import Delegator
from valarmind_tui.core.bus import EventBus
from valarmind_tui.providers.base import Provider
from valarmind_tui.settings.config import Settings

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox


def read_only_delegator(
    root: Path, provider: Provider, settings: Settings | None, bus: EventBus | None,
    sandbox: Sandbox | None = None,
) -> Delegator:
    """A Delegator whose specialists may only read (plan mode, no approver to ask)."""
    from valarmind_tui.agents.loop import LoopDeps
    from valarmind_tui.agents.registry import AgentRegistry
    from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover
    from valarmind_tui.safety.gate.pipeline import PermissionGate
    from valarmind_tui.tools.base import ToolContext
    from valarmind_tui.tools.catalog import builtin_tools

    bus = bus or EventBus()
    gate = PermissionGate(root, PolicyApprover(), mode=PermissionMode.PLAN, bus=bus)
    deps = LoopDeps(provider=provider, tools=builtin_tools(sandbox), gate=gate, bus=bus,
                    ctx=ToolContext(project_root=root, sandbox=sandbox))
    registry = AgentRegistry.load(root, settings)
    return Delegator(registry, deps, model=provider.model, settings=settings)
