"""Who a model call is for: the agent, the delegation, the tool call that caused it, the
reviewer, hook or MCP server behind it. Set where each of them runs, read by the ledger.

    with calls_for(kind="reviewer", reviewer="tool-approve"):
        await provider.stream(request)          # recorded as that reviewer's call

A context variable: asyncio tasks copy it, so parallel specialists each keep their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class CallOrigin:
    """What the ledger records of a call besides its usage (store/ledger.LedgerEntry)."""

    kind: str = "other"
    """agent, reviewer, hook, sampling, compaction, server or other (store.ledger.KINDS)."""
    agent: str = "main"
    reviewer: str | None = None
    delegation: str | None = None
    tool_call: str | None = None
    tool: str | None = None
    mcp_server: str | None = None
    skill: str | None = None


MCP_PREFIX = "mcp__"

NO_ORIGIN = CallOrigin()
CALL_ORIGIN: ContextVar[CallOrigin | None] = ContextVar("valarmind_call_origin", default=None)


def current_origin() -> CallOrigin:
    """The origin of a call made now; a tool call to an MCP tool (`mcp__<server>__<tool>`)
    names its server."""
    origin = CALL_ORIGIN.get() or NO_ORIGIN
    tool = origin.tool or ""
    if origin.mcp_server is None and tool.startswith(MCP_PREFIX):
        server = tool[len(MCP_PREFIX):].split("__", 1)[0]
        origin = replace(origin, mcp_server=server or None)
    return origin


@contextmanager
def calls_for(**changes: Any) -> Iterator[CallOrigin]:
    """Calls made inside are for this origin (the current one with `changes`)."""
    origin = replace(CALL_ORIGIN.get() or NO_ORIGIN, **changes)
    token = CALL_ORIGIN.set(origin)
    try:
        yield origin
    finally:
        CALL_ORIGIN.reset(token)
