"""MCP tools seen as ValarMind tools: `mcp__<server>__<tool>`, the server's own JSON schema.

Names must match `^[a-zA-Z0-9_-]{1,64}$` for OpenAI-style APIs (one bad name fails the whole
request), so other characters become `_` and a long name is cut with a short hash of the
original; the tool keeps its server's own name for calls. A tool's `readOnlyHint` makes it a
read tool only when its server is trusted (configured by the user, not by a project's
`.mcp.json`): anyone can write a hint.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from valarmind_tui.core.errors import ToolError, ValarMindError
from valarmind_tui.media.images import ImageAttachment, prepare_image
from valarmind_tui.tools.base import Preview, Risk, Tool, ToolContext, ToolResult

PREFIX = "mcp__"
MAX_NAME_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


DEFAULT_AGENTS = ("orchestrator", "research")
"""Who gets a server's tools when its config sets no `agents`: the main agent, to answer
about the server's data itself, and the research agent, which looks things up."""
SUMMARY_CHARS = 100


class AnyArguments(BaseModel):
    """Accepts whatever object the model sends; the MCP server validates it."""

    model_config = ConfigDict(extra="allow")


Caller = Callable[..., Awaitable[ToolResult]]
"""(server, tool, arguments, *, agent_id) -> result; the manager's call_tool."""


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


class McpTool(Tool[AnyArguments]):
    """One tool of one connected server; calls go through the manager (restart on crash)."""

    Params = AnyArguments
    path_params = ()

    def __init__(
        self, server: str, tool: Any, caller: Caller, *, name: str | None = None,
        trusted: bool = False, agents: tuple[str, ...] = DEFAULT_AGENTS,
    ) -> None:
        """`name`: the model-facing name (default `tool_name(server, tool.name)`); `trusted`:
        whether the server's annotations are believed (readOnlyHint -> read risk); `agents`:
        the agents offered this tool (the server's `agents` config)."""
        self.server = server
        self.agents = agents
        self._compact = False
        self.mcp_name: str = tool.name
        # Built-in tools declare name, description and risk per class (ClassVars); an MCP tool
        # is made at run time from the server's listing, so they are set per instance.
        # why the ignore below: ClassVars on built-ins; per instance here
        self.name = name or tool_name(server, tool.name)  # type: ignore[misc]  # why: above
        # why the ignore below: ClassVars on built-ins; per instance here
        self.description = tool.description or tool.title or tool.name  # type: ignore[misc]  # why: above
        self.input_schema: dict[str, Any] = dict(tool.input_schema or {"type": "object"})
        annotations = tool.annotations
        read_only = trusted and bool(annotations and annotations.read_only_hint)
        # why the ignore below: ClassVars on built-ins; per instance here
        self.risk = Risk.READ if read_only else Risk.WRITE  # type: ignore[misc]  # why: above
        self.trusted = trusted
        self._caller = caller

    @property
    def ask_reason(self) -> str:
        """Why the gate asks before a call (a tool its server does not mark read-only)."""
        return (f"MCP server {self.server}'s tool {self.mcp_name} is not known to be read-only "
                "(the server sets no readOnlyHint, or its hints are not believed)")

    @property
    def compact(self) -> bool:
        """True: the model sees the name and one line; `mcp_tool_schema` gives the rest."""
        return self._compact

    @compact.setter
    def compact(self, value: bool) -> None:
        if value != self._compact:
            self._compact = value
            self.__dict__.pop("_schema", None)

    def summary(self) -> str:
        """The description's first sentence (or line), cut to SUMMARY_CHARS."""
        line = next((ln.strip() for ln in self.description.splitlines() if ln.strip()), "")
        line = line.split(". ", 1)[0] if len(line) > SUMMARY_CHARS else line
        return line if len(line) <= SUMMARY_CHARS else line[:SUMMARY_CHARS - 1] + "…"

    def full_description(self) -> str:
        if self._compact:  # the system prompt says how to get the rest (mcp_tool_schema)
            return f"[{self.server}] {self.summary()}"
        return f"[MCP server {self.server}] {self.description}"

    def parameters(self) -> dict[str, Any]:
        if self._compact:
            return {"type": "object", "properties": {}}
        return self.full_parameters()

    def full_parameters(self) -> dict[str, Any]:
        params = dict(self.input_schema)
        params.setdefault("type", "object")
        params.setdefault("properties", {})
        return params

    def full_schema(self) -> dict[str, Any]:
        """The schema the model would see with every detail (what `mcp_tool_schema` returns)."""
        return {"type": "function", "function": {
            "name": self.name, "description": f"[MCP server {self.server}] {self.description}",
            "parameters": self.full_parameters()}}

    def parse(self, arguments: dict[str, Any]) -> AnyArguments:
        """Arguments checked against the server's own input schema, so a model that never
        loaded the schema gets a clear error with the schema to retry with."""
        problem = schema_problem(self.input_schema, arguments)
        if problem is not None:
            raise ToolError(
                f"invalid arguments for {self.name}: {problem}. Its input schema: "
                + json.dumps(self.full_parameters(), ensure_ascii=False)[:4000])
        return super().parse(arguments)

    async def preview(self, params: AnyArguments, ctx: ToolContext) -> Preview:
        args = json.dumps(params.model_dump(), ensure_ascii=False)
        if len(args) > 300:
            args = args[:300] + "…"
        return Preview(summary=f"MCP {self.server}: {self.mcp_name} {args}")

    async def run(self, params: AnyArguments, ctx: ToolContext) -> ToolResult:
        return await self._caller(self.server, self.mcp_name, params.model_dump(),
                                  agent_id=ctx.agent_id)


def schema_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """The first way `arguments` break a JSON schema, or None (also when the server's schema
    is itself not a valid JSON schema: the server then has the last word)."""
    import jsonschema

    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
        error = jsonschema.exceptions.best_match(validator_cls(schema).iter_errors(arguments))
    except (jsonschema.exceptions.SchemaError, TypeError, ValueError):
        return None
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def result_to_tool_result(result: Any, tool: str = "tool") -> ToolResult:
    """An MCP CallToolResult as text for the model, its images (up to MAX_IMAGES, downscaled
    like a prompt's) beside it; is_error kept. Blocking: Pillow decodes the images."""
    parts: list[str] = []
    images: list[ImageAttachment] = []
    for block in result.content or []:
        if getattr(block, "type", "") == "image" and len(images) < MAX_IMAGES:
            name = f"{tool} image {len(images) + 1}"
            try:
                images.append(prepare_image(base64.b64decode(block.data, validate=True), name))
            except (ValarMindError, ValueError) as exc:
                parts.append(f"[image omitted: {exc}]")
            continue
        parts.append(content_text(block))
    if not parts and not images and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return ToolResult(
        output="\n".join(parts), is_error=bool(result.is_error),
        data=result.structured_content, images=tuple(images),
    )


MAX_IMAGES = 8
"""Images of one tool answer the model gets; the rest are described in text."""


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
