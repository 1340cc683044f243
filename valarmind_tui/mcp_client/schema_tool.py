"""`mcp_tool_schema`: the full schema of MCP tools shown to the model in short form.

When the connected servers' schemas would fill more than `mcp.schema_share` of the context
window, the agents see each MCP tool's name and one line (McpTool.compact); this tool returns the
whole description and input schema of the ones the model means to call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from valarmind_tui.mcp_client.tools import PREFIX
from valarmind_tui.tools.base import Risk, Tool, ToolContext, ToolResult

SCHEMA_TOOL = "mcp_tool_schema"


class SchemaParams(BaseModel):
    names: list[str] = Field(
        min_length=1, max_length=20,
        description="MCP tool names as offered (mcp__<server>__<tool>)")


class McpSchemaTool(Tool[SchemaParams]):
    """Looks tools up by name in the manager's current tool list."""

    name = SCHEMA_TOOL
    Params = SchemaParams
    risk = Risk.READ
    companion_of = PREFIX
    description = ("Full description and input schema of MCP tools listed in short form. Call "
                   "it before the first call of such a tool.")

    def __init__(self, lookup: Callable[[str], Any]) -> None:
        """`lookup`: tool name -> McpTool or None."""
        self._lookup = lookup

    async def run(self, params: SchemaParams, ctx: ToolContext) -> ToolResult:
        found, missing = [], []
        for name in params.names:
            tool = self._lookup(name)
            if tool is None:
                missing.append(name)
            else:
                found.append(tool.full_schema()["function"])
        if not found:
            return ToolResult.error(f"No MCP tool named {', '.join(missing)}.")
        text = json.dumps(found, ensure_ascii=False, indent=1)
        if missing:
            text += f"\nNot found: {', '.join(missing)}"
        return ToolResult(output=text, data=found)
