"""What an agent's system prompt says about the MCP servers whose tools it is offered.

One line per server: its name, how many of its tools the agent gets, and the first line of what
the server says about itself (its `instructions`, cut short: server text is untrusted input, and
the tools' own descriptions are in the tool list anyway).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from valarmind_tui.mcp_client.schema_tool import SCHEMA_TOOL

ABOUT_CHARS = 160


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= ABOUT_CHARS else line[:ABOUT_CHARS - 1] + "…"


def servers_section(manager: Any, registry: Any, agent: str, patterns: Iterable[str]) -> str:
    """The prompt text for `agent` (empty when it gets no MCP tool). `registry` is the session's
    ToolRegistry (with the servers' tools registered), `patterns` the agent's own tool list."""
    tools = [t for t in registry.for_agent(agent, patterns) if hasattr(t, "server")]
    if not tools:
        return ""
    counts: dict[str, int] = {}
    for tool in tools:
        counts[tool.server] = counts.get(tool.server, 0) + 1
    about = {name: conn.instructions for name, conn in manager.ready_connections()}
    lines = ["Connected MCP servers (call their tools, named mcp__<server>__<tool>, directly when "
             "a question is about their data; tools not marked read-only ask the user first):"]
    for server, count in sorted(counts.items()):
        note = _first_line(about.get(server, ""))
        lines.append(f"- {server}: {count} tool{'s' if count != 1 else ''}"
                     + (f" - {note}" if note else ""))
    if manager.on_demand:
        lines.append(f"Their tools are listed in short form: call {SCHEMA_TOOL} with the names "
                     "you need to get their arguments before the first call.")
    return "\n".join(lines)


def schema_source(tool: Any) -> str:
    """The /context row a tool's schema counts in: `built-in`, or its MCP server (marked when
    its schemas are shown in short form, with what the full ones would take)."""
    server = getattr(tool, "server", None)
    if server is None:
        return "built-in"
    if getattr(tool, "compact", False):
        return f"{server} (short form; full schemas load on demand)"
    return server


def schemas_by_source(tools: Iterable[Any]) -> dict[str, list[dict[str, Any]]]:
    """Every tool's schema under its /context row (`schema_source`)."""
    schemas: dict[str, list[dict[str, Any]]] = {}
    for tool in tools:
        schemas.setdefault(schema_source(tool), []).append(tool.schema())
    return schemas
