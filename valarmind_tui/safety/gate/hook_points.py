"""Where the gate and the tool-running path call the user's hooks, as a Protocol.

The implementation (valarmind_tui.hooks.HookRunner) runs commands and so sits above safety in the
layers; the gate only knows this shape. A verdict says what the hooks decided, never more: the
gate decides what a hook's `allow` may answer (the "ask" steps, never a deny rule or a protected
path).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from valarmind_tui.safety.gate.verdict import Verdict


@dataclass(frozen=True)
class HookVerdict:
    """What the PreToolUse (or PermissionRequest) hooks said about one call."""

    decision: Verdict | None = None
    """None: no hook had an opinion; the pipeline goes on as if there were no hooks."""
    reason: str = ""
    """Why (a deny's reason goes back to the model)."""
    updated_input: dict[str, Any] | None = None
    """A hook's replacement for the tool's arguments (in our parameter names)."""
    stop: str | None = None
    """A hook said `continue: false`: the prompt stops, with this reason."""


NO_OPINION = HookVerdict()


@dataclass(frozen=True)
class PostToolFeedback:
    """What the PostToolUse hooks add to a tool's result."""

    block_reason: str | None = None
    """exit 2 or `decision: block`: shown to the model beside the result."""
    context: str | None = None
    """`additionalContext`: added to what the model reads."""
    stop: str | None = None
    """A hook said `continue: false`: the prompt stops, with this reason."""


class GateHooks(Protocol):
    """The hook points around a tool call. Every method reports a broken hook (Notice) and
    returns "no opinion": a hook never crashes or hangs the call."""

    async def pre_tool_use(self, tool: str, params: Any, ctx: Any) -> HookVerdict: ...

    async def permission_request(self, tool: str, params: Any, ctx: Any) -> HookVerdict: ...

    def notify(self, message: str, notification_type: str) -> None: ...

    async def post_tool_use(
        self, tool: str, params: Any, ctx: Any, response: dict[str, Any]
    ) -> PostToolFeedback: ...

    async def stop(self, event: str, agent_id: str, active: bool) -> str | None:
        """Stop/SubagentStop hooks: why the agent should go on, or None to let it stop."""
        ...

    async def subagent_start(self, agent_id: str, agent_type: str) -> str:
        """SubagentStart hooks: context for the specialist's task ("" when none)."""
        ...


def with_updated_input(tool: Any, params: Any, updated: dict[str, Any]) -> Any:
    """The tool's arguments with a hook's `updatedInput` laid over them, parsed by the tool;
    raises ToolError, TypeError or ValueError when the result is not valid."""
    parse = getattr(tool, "parse", None)
    dumped = params.model_dump() if hasattr(params, "model_dump") else dict(params)
    return parse({**dumped, **updated}) if parse else params
