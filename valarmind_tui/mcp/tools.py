"""MCP tools seen as ValarMind tools: `mcp__<server>__<tool>`, the server's own JSON schema."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from valarmind_tui.tools.base import Preview, Risk, Tool, ToolContext, ToolResult

PREFIX = "mcp__"


class AnyArguments(BaseModel):
    """Accepts whatever object the model sends; the MCP server validates it."""

    model_config = ConfigDict(extra="allow")


Caller = Callable[[str, str, dict[str, Any]], Awaitable[ToolResult]]
"""(server, tool, arguments) -> result; the manager's call_tool."""


def tool_name(server: str, tool: str) -> str:
    return f"{PREFIX}{server}__{tool}"


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server, tool) from `mcp__server__tool`; None for any other name."""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX):].partition("__")
    return (server, tool) if sep and server and tool else None


class McpTool(Tool):
    """One tool of one connected server; calls go through the manager (restart on crash)."""

    Params = AnyArguments
    path_params = ()

    def __init__(self, server: str, tool: Any, caller: Caller) -> None:
        self.server = server
        self.mcp_name: str = tool.name
        self.name = tool_name(server, tool.name)  # type: ignore[misc]
        self.description = tool.description or tool.title or tool.name  # type: ignore[misc]
        self.input_schema: dict[str, Any] = dict(tool.input_schema or {"type": "object"})
        annotations = tool.annotations
        read_only = bool(annotations and annotations.read_only_hint)
        self.risk = Risk.READ if read_only else Risk.WRITE  # type: ignore[misc]
        self._caller = caller

    def full_description(self) -> str:
        return f"[MCP server {self.server}] {self.description}"

    def parameters(self) -> dict[str, Any]:
        params = dict(self.input_schema)
        params.setdefault("type", "object")
        params.setdefault("properties", {})
        return params

    async def preview(self, params: BaseModel, ctx: ToolContext) -> Preview:
        args = json.dumps(params.model_dump(), ensure_ascii=False)
        if len(args) > 300:
            args = args[:300] + "…"
        return Preview(summary=f"MCP {self.server}: {self.mcp_name} {args}")

    async def run(self, params: BaseModel, ctx: ToolContext) -> ToolResult:
        return await self._caller(self.server, self.mcp_name, params.model_dump())


def result_to_tool_result(result: Any) -> ToolResult:
    """An MCP CallToolResult as text for the model; is_error kept."""
    parts: list[str] = []
    for block in result.content or []:
        parts.append(content_text(block))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return ToolResult(
        output="\n".join(parts), is_error=bool(result.is_error),
        data=result.structured_content,
    )


def content_text(block: Any) -> str:
    """Text for one MCP content block (text, image, audio, resource, resource link)."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        return f"[{kind} {getattr(block, 'mime_type', '')}, {len(block.data)} base64 chars]"
    if kind == "resource":
        res = block.resource
        text = getattr(res, "text", None)
        return text if text is not None else f"[binary resource {res.uri}]"
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    return str(block)
