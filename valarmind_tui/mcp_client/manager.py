"""MCP client manager: the servers a session (or a `valarmind run` profile) talks to.

    manager = McpManager(settings.mcp, project_root, bus, sampling=handler)
    await manager.start()                      # all servers in parallel, bounded; never raises
    manager.register_into(registry, overrides) # tools as mcp__<server>__<tool>
    ...
    await manager.close()                      # always disconnects

A server that fails to start or crashes is a Notice on the bus and a status in `status()`; a
crashed server is started again on its next use. The `mcp` SDK is imported lazily (connection
set-up only), so importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import Notice, NoticeLevel
from valarmind_tui.core.tokenizer import most_tokens
from valarmind_tui.mcp_client.config_files import server_configs
from valarmind_tui.mcp_client.connection import Connection, StartError, describe_error
from valarmind_tui.mcp_client.limits import cap_text, timed_out
from valarmind_tui.mcp_client.sampling import SamplingHandler
from valarmind_tui.mcp_client.schema_tool import SCHEMA_TOOL, McpSchemaTool
from valarmind_tui.mcp_client.tools import (
    DEFAULT_AGENTS,
    McpTool,
    content_text,
    result_to_tool_result,
    tool_name,
    unique_tool_name,
)
from valarmind_tui.settings.config import McpServerConfig, McpSettings
from valarmind_tui.tools.base import CURRENT_CALL_ID, ToolResult
from valarmind_tui.tools.registry import ToolRegistry

CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
_direct_ids = itertools.count(1)


@dataclass(frozen=True)
class ServerStatus:
    """One row of /mcp."""

    name: str
    state: str
    """stopped, starting, ready, failed, crashed or closed."""
    transport: str
    """stdio or http."""
    tools: int
    prompts: int
    resources: int
    error: str | None = None
    restarts: int = 0
    start_s: float | None = None
    """How long the last successful start took."""
    schema_tokens: int = 0
    """Tokens of the full schemas of the tools it offers."""
    on_demand: bool = False
    """Its schemas are shown in short form (loaded with mcp_tool_schema)."""


@dataclass(frozen=True)
class McpPrompt:
    """A server prompt, offered as the slash command `/mcp__<server>__<name>`."""

    server: str
    name: str
    description: str
    arguments: tuple[tuple[str, bool, str], ...]
    """(name, required, description) for each argument."""

    @property
    def command(self) -> str:
        return tool_name(self.server, self.name)


class McpManager:
    """Starts, restarts and stops MCP servers; exposes their tools, prompts and resources."""

    def __init__(
        self, settings: McpSettings, project_root: Path, bus: EventBus, *,
        sampling: SamplingHandler | None = None, servers: dict[str, McpServerConfig] | None = None,
        user_servers: Iterable[str] = (), count_tokens: Callable[[Any], int] | None = None,
    ) -> None:
        """`sampling` is a SamplingHandler (answers sampling/createMessage); `servers` replaces
        the configured set (config + .mcp.json) when given. `user_servers` names the servers
        whose tools' annotations are believed (readOnlyHint -> read risk); every other server's
        tools are write risk. `count_tokens` counts a tool schema's tokens (default: an
        estimate); `schema_budget` (tokens, set by the session) is what the schemas may take
        before they are shown in short form."""
        self.settings = settings
        self.project_root = project_root
        self.bus = bus
        self.sampling = sampling
        self.configs = servers if servers is not None else server_configs(settings, project_root)
        self.user_servers = frozenset(user_servers)
        self._connections: dict[str, Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._registries: list[tuple[ToolRegistry, dict[str, list[str]] | None]] = []
        self.last_start_s: float | None = None
        self.count_tokens = count_tokens or (lambda schema: len(json.dumps(schema)) // 4)
        self.schema_budget: int | None = None
        self.on_demand = False
        self._in_flight: dict[str, dict[str, str]] = {}
        if sampling is not None:
            sampling.calls_in_flight = self.calls_in_flight

    # -- lifecycle -----------------------------------------------------------------------------

    def names(self) -> list[str]:
        return list(self.configs)

    async def start(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """Start the named servers (all when None) in parallel; returns name -> state.

        Unknown names and failures become Notices, never exceptions."""
        wanted = list(self.configs) if names is None else list(dict.fromkeys(names))
        unknown = [n for n in wanted if n not in self.configs]
        for name in unknown:
            self._notice("error", f"MCP server {name!r} is not configured")
        started = time.perf_counter()
        await asyncio.gather(*(self._start_one(n) for n in wanted if n in self.configs))
        self.last_start_s = time.perf_counter() - started
        return {n: (self._connections[n].state if n in self._connections else "failed")
                for n in wanted}

    def _connection(self, name: str) -> Connection:
        conn = self._connections.get(name)
        if conn is None:
            callback = self.sampling.callback_for(name) if self.sampling is not None else None
            conn = Connection(
                name, self.configs[name], self.project_root, sampling_callback=callback,
                on_tools_changed=lambda: self._tools_changed(name),
                max_message_chars=int(self.settings.max_message_mb * 1_000_000),
                on_bad_output=lambda line: self._notice("warning", line),
            )
            self._connections[name] = conn
            self._locks[name] = asyncio.Lock()
        return conn

    def _timeout(self, name: str) -> float:
        return min(self.configs[name].timeout_s, self.settings.startup_timeout_s)

    async def _start_one(self, name: str) -> bool:
        conn = self._connection(name)
        async with self._locks[name]:
            if conn.state == "ready":
                return True
            try:
                await conn.start(self._timeout(name))
            except StartError as exc:
                self._notice("warning", f"MCP server {name!r} failed to start: {exc}")
                return False
            except Exception as exc:  # anything unexpected is still only a notice
                conn.state, conn.error = "failed", describe_error(exc)
                self._notice("warning", f"MCP server {name!r} failed to start: {conn.error}")
                return False
        return True

    async def close(self) -> None:
        """Disconnect every server (in parallel); safe to call twice."""
        conns = list(self._connections.values())
        await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)
        for conn in conns:
            conn.state = "closed"
            conn.close_log()

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _ensure(self, name: str) -> Connection | str:
        """A ready connection, restarting a crashed or failed server; or why there is none."""
        if name not in self.configs:
            return f"MCP server {name!r} is not configured"
        conn = self._connection(name)
        if conn.state == "ready" and conn.session is not None:
            return conn
        if conn.state == "closed":
            return f"MCP server {name!r} is closed"
        previous = conn.state
        async with self._locks[name]:
            if conn.state != "ready" or conn.session is None:
                await conn.stop()
                if previous in ("crashed", "failed"):
                    self._notice("info", f"MCP server {name!r} is {previous}; restarting it")
                try:
                    await conn.start(self._timeout(name))
                except StartError as exc:
                    self._notice("warning", f"MCP server {name!r} failed to start: {exc}")
                    return f"MCP server {name!r} is unavailable: {exc}"
                if previous in ("crashed", "failed"):
                    conn.restarts += 1
        return conn

    # -- calls ---------------------------------------------------------------------------------

    async def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any], *, timeout_s: float | None = None,
        agent_id: str = "main",
    ) -> ToolResult:
        """Call a server's tool; failures (including a crash mid-call, or no answer within
        `timeout_s`, default the server's or [mcp] tool_timeout_s) are error results. While it
        runs, the agent's tool call (CURRENT_CALL_ID) is what the server's sampling requests
        are linked to."""
        config = self.configs.get(server)
        limit = timeout_s or (config and config.tool_timeout_s) or self.settings.tool_timeout_s
        conn = await self._ensure(server)
        if isinstance(conn, str):
            return ToolResult.error(conn)
        call_id = CURRENT_CALL_ID.get() or f"direct-{next(_direct_ids)}"
        in_flight = self._in_flight.setdefault(server, {})
        in_flight[call_id] = agent_id
        try:
            result = await conn.session.call_tool(tool, arguments, read_timeout_seconds=limit)
        except Exception as exc:
            if getattr(exc, "code", None) == REQUEST_TIMEOUT:  # the SDK told the server to stop
                self._notice("warning", f"MCP server {server!r}: {tool} did not answer within "
                                        f"{limit:g} s; the call was cancelled")
                return timed_out(server, tool, limit)
            return await self._call_failed(conn, f"call to {tool}", exc)
        finally:
            in_flight.pop(call_id, None)
        answer = await asyncio.to_thread(result_to_tool_result, result, tool)
        return cap_text(answer, self.settings.max_result_chars)

    def calls_in_flight(self, server: str) -> dict[str, str]:
        """{tool call id: agent id} of the calls to `server` running now."""
        return dict(self._in_flight.get(server, {}))

    async def _call_failed(self, conn: Connection, what: str, exc: Exception) -> ToolResult:
        code = getattr(exc, "code", None)
        closed = code == CONNECTION_CLOSED or type(exc).__name__ in (
            "ClosedResourceError", "BrokenResourceError", "EndOfStream")
        if closed:
            reason = f"the server stopped during the {what}"
            tail = conn.stderr_tail()
            conn.mark_crashed(reason + (f" (stderr: {tail})" if tail else ""))
            self._notice("error", f"MCP server {conn.name!r} crashed: {reason}; "
                                  "it will be restarted on next use")
            await conn.stop()
            conn.state = "crashed"
            return ToolResult.error(f"MCP server {conn.name!r} crashed during the {what}")
        return ToolResult.error(f"MCP server {conn.name!r}: {what} failed: {describe_error(exc)}")

    def prompts(self) -> list[McpPrompt]:
        """Prompts of every ready server, for slash commands."""
        found: list[McpPrompt] = []
        for name, conn in self._connections.items():
            if conn.state != "ready":
                continue
            for p in conn.prompts:
                args = tuple((a.name, bool(a.required), a.description or "")
                             for a in (p.arguments or []))
                found.append(McpPrompt(name, p.name, p.description or p.title or "", args))
        return found

    async def get_prompt(self, server: str, name: str, args: dict[str, str] | None = None) -> str:
        """The prompt's messages as text (what a slash command submits). Raises ToolError."""
        from valarmind_tui.core.errors import ToolError

        conn = await self._ensure(server)
        if isinstance(conn, str):
            raise ToolError(conn)
        try:
            result = await conn.session.get_prompt(name, args or {})
        except Exception as exc:
            raise ToolError((await self._call_failed(conn, f"prompt {name}", exc)).output) from None
        return "\n\n".join(content_text(m.content) for m in result.messages)

    def ready_connections(self) -> list[tuple[str, Connection]]:
        return [(n, c) for n, c in self._connections.items() if c.state == "ready"]

    def resources(self) -> list[tuple[str, Any]]:
        """(server, Resource) for every resource the ready servers listed."""
        return [(n, r) for n, c in self._connections.items() if c.state == "ready"
                for r in c.resources]

    async def read_resource(self, server: str, uri: str) -> str:
        """A resource's text (binary contents described). Raises ToolError."""
        from valarmind_tui.core.errors import ToolError

        conn = await self._ensure(server)
        if isinstance(conn, str):
            raise ToolError(conn)
        try:
            result = await conn.session.read_resource(uri)
        except Exception as exc:
            raise ToolError((await self._call_failed(conn, f"read of {uri}", exc)).output) from None
        parts = []
        for item in result.contents:
            text = getattr(item, "text", None)
            parts.append(text if text is not None else
                         f"[binary {item.mime_type or 'data'}, {len(item.blob)} base64 chars]")
        return "\n".join(parts)

    # -- tools ---------------------------------------------------------------------------------

    def allowed(self, server: str, tool: str, overrides: dict[str, list[str]] | None) -> bool:
        """Seed 000: the agent's list for this server wins where present, else the allowlist."""
        if overrides is not None and server in overrides:
            patterns: list[str] | None = overrides[server]
        else:
            patterns = self.configs[server].tool_allowlist
        return patterns is None or any(fnmatch.fnmatchcase(tool, p) for p in patterns)

    def tools(self, overrides: dict[str, list[str]] | None = None) -> list[McpTool]:
        """Tool objects for every ready server's allowed tools, under valid, distinct names."""
        found: list[McpTool] = []
        taken: set[str] = set()
        for name, conn in sorted(self._connections.items()):
            if conn.state != "ready":
                continue
            trusted = name in self.user_servers
            agents = self.configs[name].agents
            found.extend(
                McpTool(name, t, self.call_tool, name=unique_tool_name(name, t.name, taken),
                        trusted=trusted,
                        agents=DEFAULT_AGENTS if agents is None else tuple(agents))
                for t in sorted(conn.tools, key=lambda t: t.name)
                if self.allowed(name, t.name, overrides))
        return found

    def register_into(
        self, registry: ToolRegistry, allow_overrides: dict[str, list[str]] | None = None
    ) -> list[str]:
        """Put the allowed tools into `registry` (replacing earlier MCP tools of these servers);
        kept up to date when a server announces a changed tool list. Returns the names added."""
        for existing in registry.names():
            tool = registry.get(existing)
            if isinstance(tool, McpTool) and tool.server in self._connections:
                registry.unregister(existing)
        tools = self.tools(allow_overrides)
        self.on_demand = (self.schema_budget is not None
                          and not self._schemas_fit(tools, self.schema_budget))
        for tool in tools:
            tool.compact = self.on_demand
            registry.register(tool)
        if self.on_demand:
            by_name = {t.name: t for t in tools}
            registry.register(McpSchemaTool(by_name.get))
        else:
            registry.unregister(SCHEMA_TOOL)
        if not any(r is registry for r, _ in self._registries):
            self._registries.append((registry, allow_overrides))
        return [t.name for t in tools]

    def _schemas_fit(self, tools: list[McpTool], budget: int) -> bool:
        """Whether the tools' whole schemas take at most `budget` tokens: by their bytes first
        (no text has more tokens), counted only past them, so a few servers' tools load no
        tokenizer (24 MB) into the UI."""
        schemas = [t.full_schema() for t in tools]
        if sum(most_tokens(json.dumps(s, separators=(",", ":"))) for s in schemas) <= budget:
            return True
        return sum(self.count_tokens(s) for s in schemas) <= budget

    async def _tools_changed(self, server: str) -> None:
        for registry, overrides in self._registries:
            self.register_into(registry, overrides)

    def status(self) -> list[ServerStatus]:
        """Every configured server, started or not."""
        rows = []
        offered = self.tools()
        for name, config in self.configs.items():
            conn = self._connections.get(name)
            if conn is None:
                rows.append(ServerStatus(name, "stopped", "http" if config.url else "stdio",
                                         0, 0, 0))
                continue
            schema_tokens = sum(self.count_tokens(t.full_schema()) for t in offered
                                if t.server == name)
            rows.append(ServerStatus(
                name, conn.state, conn.transport, len(conn.tools), len(conn.prompts),
                len(conn.resources), conn.error, conn.restarts, conn.started_s,
                schema_tokens, self.on_demand and schema_tokens > 0,
            ))
        return rows

    def _notice(self, level: NoticeLevel, message: str) -> None:
        self.bus.publish(Notice(level=level, message=message))
