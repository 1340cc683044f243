"""One tool call through the gate: the only way any face or agent runs a tool.

`run_gated` checks the call (safety/gate), records a checkpoint before a write or a command,
runs the tool, adds what the language servers now say about the files it wrote (lsp/), masks
every secret in what it returned (safety/secrets: the model, the PostToolUse hooks, the store
and an MCP peer all read the masked result), then lets the PostToolUse hooks add their feedback.
"""

from __future__ import annotations

import dataclasses

from pydantic import BaseModel

from valarmind_tui.agents.post_tool_hooks import after_tool
from valarmind_tui.core.errors import ToolDenied, ToolError
from valarmind_tui.core.events import ToolStatus
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.safety.secrets import project_masker
from valarmind_tui.tools.base import Risk, Tool, ToolContext, ToolResult


async def run_gated(
    tool: Tool, params: BaseModel, ctx: ToolContext, gate: PermissionGate,
    permissions: AgentPermissions,
) -> tuple[ToolStatus, ToolResult]:
    """Pass one call through the gate and run it: the only way any face or agent runs a tool.

    Before a write or a command runs, `ctx.services.checkpoint` (when the session set one) records
    the work tree, so /undo covers what commands changed too; after it, `ctx.services.changed`
    notes what the call changed (its paths for a file tool), so /undo leaves what other runs
    changed meanwhile."""
    outside = outside_scope(tool, params, ctx)  # before the gate: nobody is asked for it
    if outside is not None:
        return "denied", ToolResult.error(outside)
    decision = await gate.check(tool, params, ctx, permissions)
    if not decision.allowed:
        message = f"Denied: {decision.reason}" if decision.reason else "Denied."
        if decision.feedback:
            message += f"\nFeedback from the user: {decision.feedback}"
        return "denied", ToolResult.error(message)
    if decision.params is not None:  # a PreToolUse hook's updatedInput
        params = decision.params
        outside = outside_scope(tool, params, ctx)
        if outside is not None:
            return "denied", ToolResult.error(outside)
    checkpoint = ctx.services.checkpoint
    changes = tool.risk in (Risk.WRITE, Risk.EXECUTE)
    if checkpoint is not None and changes:
        await checkpoint(tool.name)  # the work tree before a write or command (never raises)
    try:
        result = await tool.run(params, ctx)
    except ToolDenied as exc:
        return "denied", ToolResult.error(f"Denied: {exc}")
    except ToolError as exc:
        result = ToolResult.error(str(exc))
    finally:
        if ctx.services.changed is not None and changes:
            await ctx.services.changed(tool.name, written_paths(tool, params))
    result = await with_diagnostics(tool, params, ctx, with_nested_context(tool, params, ctx,
                                                                           result))
    result = mask_result(result, ctx)
    if gate.hooks is not None:
        result = await after_tool(gate.hooks, tool, params, ctx, result)
    return ("error" if result.is_error else "ok"), result


def outside_scope(tool: Tool, params: BaseModel, ctx: ToolContext) -> str | None:
    """Why a write falls outside the files this specialist was started for (it runs beside
    other writers: agents.delegation.claims), or None."""
    scope = ctx.services.write_scope
    if scope is None or tool.risk is not Risk.WRITE:
        return None
    from valarmind_tui.agents.delegation.claims import project_paths, within

    try:
        paths = project_paths(ctx.project_root, call_paths(tool, params))
    except ToolError as exc:
        return f"Denied: {exc}"
    if paths and all(within(p, scope) for p in paths):
        return None
    return ("Denied: this agent was started to change only " + ", ".join(sorted(scope))
            + " (other agents change other files at the same time). Report what else needs "
              "changing instead.")


def written_paths(tool: Tool, params: BaseModel) -> list[str] | None:
    """The paths a write tool names (write_file, edit_file); None for a command or a tool that
    names none (an MCP tool), which may change anything."""
    if tool.risk is not Risk.WRITE or not getattr(tool, "path_params", ()):
        return None
    return call_paths(tool, params)


def call_paths(tool: Tool, params: BaseModel) -> list[str]:
    paths: list[str] = []
    for name in getattr(tool, "path_params", ()):
        value = getattr(params, name, None)
        paths += [value] if isinstance(value, str) else [
            v for v in value or () if isinstance(v, str)]
    return paths


NESTED_CONTEXT_TOOLS = frozenset({"read_file", "read_many_files", "edit_file", "write_file"})
"""The tools whose paths bring a subfolder's context files in (reading or editing a file)."""


def with_nested_context(tool: Tool, params: BaseModel, ctx: ToolContext,
                        result: ToolResult) -> ToolResult:
    """The result, followed by the context files of the folders the call read or edited
    first (ctx.services.nested_context), so the model reads them beside the file."""
    nested = ctx.services.nested_context
    if nested is None or result.is_error or tool.name not in NESTED_CONTEXT_TOOLS:
        return result
    extra = nested(call_paths(tool, params))
    return dataclasses.replace(result, output=f"{result.output}\n\n{extra}") if extra else result


READ_TOOLS = frozenset({"read_file", "read_many_files"})
"""The tools whose files are opened in their language server (warm for the edit to come)."""


async def with_diagnostics(tool: Tool, params: BaseModel, ctx: ToolContext,
                           result: ToolResult) -> ToolResult:
    """After a write, the result followed by the language servers' new diagnostics for what it
    wrote (and errors it caused in other open files); after a command, for the open files it
    changed. A read opens its files in their server, in the background."""
    lsp = ctx.services.lsp
    if lsp is None or (result.is_error and tool.risk is not Risk.EXECUTE):
        return result
    if tool.name in READ_TOOLS:
        lsp.touch(call_paths(tool, params))
        return result
    if tool.risk not in (Risk.WRITE, Risk.EXECUTE):
        return result
    found = await lsp.after_change(written_paths(tool, params))
    return dataclasses.replace(result, output=f"{result.output}\n\n{found}") if found else result


def mask_result(result: ToolResult, ctx: ToolContext) -> ToolResult:
    """The result with every secret masked (safety/secrets): what a tool read stays on disk,
    but neither the model, the PostToolUse hooks, the store nor an MCP peer sees it."""
    masker = project_masker(ctx.project_root)
    return dataclasses.replace(
        result, output=masker.mask(result.output, fresh=True),
        diff=masker.mask(result.diff) if result.diff else result.diff,
        data=masker.mask_data(result.data))
