"""MCP tools seen as ValarMind tools: `mcp__<server>__<tool>`, the server's own JSON schema.

Names must match `^[a-zA-Z0-9_-]{1,64}$` for OpenAI-style APIs (one bad name fails the whole
request), so other characters become `_` and a long name is cut with a short hash of the
original; the tool keeps its server's own name for calls. A tool's `readOnlyHint` makes it a
read tool only when its server is trusted (configured by the user, not by a project's
`.mcp.json`): anyone can write a hint.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from valarmind_tui.tools.base import Preview, Risk, Tool, ToolContext, ToolResult

PREFIX = "mcp__"
MAX_NAME_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class AnyArguments(BaseModel):
    """Accepts whatever object the model sends; the MCP server validates it."""

    model_config = ConfigDict(extra="allow")


Caller = Callable[[str, str, dict[str, Any]], Awaitable[ToolResult]]
"""(server, tool, arguments) -> result; the manager's call_tool."""


def tool_name(server: str, tool: str, *, salt: str = "") -> str:
    """`mcp__<server>__<tool>` with characters outside `[A-Za-z0-9_-]` replaced by `_`; when
    that is longer than 64 characters (or a `salt` asks for a distinct name), cut and ended
    with a hash of the original names."""
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME_CHARS and not salt:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}\0{salt}".encode()).hexdigest()[:8]
    return f"{name[:MAX_NAME_CHARS - 9]}_{digest}"


def unique_tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`tool_name`, made distinct from the names in `taken` (which it joins)."""
    name = tool_name(server, tool)
    attempt = 0
    while name in taken:
        attempt += 1
        name = tool_name(server, tool, salt=str(attempt))
    taken.add(name)
    return name


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server, tool) from `mcp__server__tool`; None for any other name. (A cleaned or cut
    name gives the cleaned parts: the tool object keeps the originals.)"""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX):].partition("__")
    return (server, tool) if sep and server and tool else None


class McpTool(Tool):
    """One tool of one connected server; calls go through the manager (restart on crash)."""

    Params = AnyArguments
    path_params = ()

    def __init__(
        self, server: str, tool: Any, caller: Caller, *, name: str | None = None,
        trusted: bool = False,
    ) -> None:
        """`name`: the model-facing name (default `tool_name(server, tool.name)`); `trusted`:
        whether the server's annotations are believed (readOnlyHint -> read risk)."""
        self.server = server
        self.mcp_name: str = tool.name
        self.name = name or tool_name(server, tool.name)  # type: ignore[misc]
        self.description = tool.description or tool.title or tool.name  # type: ignore[misc]
        self.input_schema: dict[str, Any] = dict(tool.input_schema or {"type": "object"})
        annotations = tool.annotations
        read_only = trusted and bool(annotations and annotations.read_only_hint)
        self.risk = Risk.READ if read_only else Risk.WRITE  # type: ignore[misc]
        self.trusted = trusted
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
