"""The shape every tool has: typed params, a risk class, which params are paths, and a result.

A tool module defines a `Params` pydantic model (its Field descriptions are the JSON schema the
model sees), subclasses Tool, and keeps its long description in a sibling `<name>.md`.
"""

from __future__ import annotations

import asyncio
import json
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from valarmind_tui.core.errors import ToolError
from valarmind_tui.tools.result import Preview, ToolResult
from valarmind_tui.tools.services import ToolServices

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox


CURRENT_CALL_ID: ContextVar[str | None] = ContextVar("valarmind_tool_call_id", default=None)
"""The id of the tool call being run (the agent loop sets it): an MCP server's sampling request
is linked to the call that caused it."""


class Risk(StrEnum):
    """What a tool can do; the gate decides by it."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    WEB = "web"
    SPAWN = "spawn"


@dataclass
class ToolContext:
    """What a running tool may use. Built per agent run by the session."""

    project_root: Path
    agent_id: str = "main"
    cancel_event: asyncio.Event = field(default_factory=asyncio.Event)
    services: ToolServices = field(default_factory=ToolServices)
    """The session services the tool may reach (approver, mode, task list, delegator...)."""
    sandbox: Sandbox | None = None
    """What every command a tool runs (bash, git) goes through; None runs them unconfined."""


class ToolParams(BaseModel):
    """The base of a tool's arguments (`Tool.Params`): the validator is built on first use, not
    at import, so the tools a session registers and a turn never calls cost little at start."""

    model_config = ConfigDict(defer_build=True)


P = TypeVar("P", bound=BaseModel)
"""A tool's Params model."""


@cache
def _params_schema(params: type[BaseModel]) -> str:
    """A Params model's JSON schema, made once per model. The orchestrator's own tools are new
    objects each prompt, and pydantic made their schemas again before every request (~5 ms
    between Enter and the request); a fresh copy is handed out, as callers may edit theirs."""
    schema = params.model_json_schema()
    schema.pop("title", None)
    return json.dumps(schema)


@cache
def _sibling_text(module: str) -> str:
    """The `<module>.md` beside a tool's module, stripped ("" when there is none)."""
    package, _, stem = module.rpartition(".")
    try:
        return resources.files(package).joinpath(f"{stem}.md").read_text(encoding="utf-8").strip()
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return ""


class Tool(Generic[P]):
    """Base class of every tool: `class ReadFile(Tool[Params])` sets `Params = Params` and the
    other ClassVars, and implements `run(params: Params, ...)`. What handles tools of any Params
    (the registry, the gate, the agent loop) holds a `Tool[Any]`: it passes `run` what `parse`
    returned, which is that tool's own Params."""

    name: ClassVar[str]
    Params: type[P]
    """The arguments' model (a class variable: mypy cannot type a ClassVar by a TypeVar)."""
    risk: ClassVar[Risk] = Risk.READ
    path_params: ClassVar[tuple[str, ...]] = ()
    """Names of params that hold paths; the gate resolves and classifies them."""
    description: ClassVar[str] = ""
    """Short description; the sibling .md file, when present, replaces it."""
    agents: tuple[str, ...] | None = None
    """Agents offered this tool beyond their own tool lists (MCP servers' and plugins' tools:
    `ToolRegistry.for_agent`). Such a tool is granted by that configuration, so the gate does
    not check the agent's permission flags for it; the mode and rules still apply."""
    companion_of: str | None = None
    """A name prefix: the tool goes to every agent that gets a tool with that prefix
    (`mcp_tool_schema` follows the `mcp__` tools)."""

    def full_description(self) -> str:
        return _sibling_text(type(self).__module__) or self.description

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema (built once per tool: it is sent every turn)."""
        cached = self.__dict__.get("_schema")
        if cached is None:
            cached = self.__dict__["_schema"] = self._build_schema()
        return cached

    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments (MCP tools use their server's)."""
        return json.loads(_params_schema(self.Params))

    def _build_schema(self) -> dict[str, Any]:
        params = self.parameters()
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.full_description(),
                "parameters": params,
            },
        }

    def parse(self, arguments: dict[str, Any]) -> P:
        """Validate arguments; raises ToolError with a message the model can act on."""
        try:
            return self.Params.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ToolError(f"invalid arguments for {self.name}: {problems}") from None

    async def preview(self, params: P, ctx: ToolContext) -> Preview:
        """What an approval shows; tools that change things override it."""
        return Preview(summary=f"{self.name} {params.model_dump_json(exclude_none=True)}")

    async def run(self, params: P, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError
