"""PostToolUse hooks after a tool ran (`run_gated`): what they say joins what the model reads."""

from __future__ import annotations

import dataclasses

from pydantic import BaseModel

from valarmind_tui.core.errors import HookStopped
from valarmind_tui.safety.gate.hook_points import GateHooks
from valarmind_tui.tools.base import Tool, ToolContext, ToolResult


async def after_tool(
    hooks: GateHooks, tool: Tool, params: BaseModel, ctx: ToolContext, result: ToolResult
) -> ToolResult:
    """PostToolUse hooks: what they say is added to what the model reads of the result."""
    response = {"output": result.output, "is_error": result.is_error,
                "success": not result.is_error}
    feedback = await hooks.post_tool_use(tool.name, params, ctx, response)
    if feedback.stop is not None:
        raise HookStopped(f"Stopped by a PostToolUse hook: {feedback.stop}")
    notes = []
    if feedback.block_reason:
        notes.append(f"PostToolUse hook feedback: {feedback.block_reason}")
    if feedback.context:
        notes.append(f"PostToolUse hook context: {feedback.context}")
    if not notes:
        return result
    return dataclasses.replace(result, output=result.output + "\n\n" + "\n".join(notes))
