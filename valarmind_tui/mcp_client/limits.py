"""Limits on what one MCP tool call may cost: its time, the size of the message that answers it,
and the text of it the model is given.

- Time: `[mcp] tool_timeout_s` (120 s), or the server's own `tool_timeout_s`. The SDK ends the
  wait and sends the server `notifications/cancelled`; an answer that comes later is dropped.
- Message: the SDK's stdio reader joins a line's chunks by copying what it has so far, so a
  100 MB answer took minutes of CPU and hundreds of MB before it was even parsed. Our servers'
  output is read through `BoundedLines`: each line is joined once, and a line over
  `[mcp] max_message_mb` is counted and thrown away as it arrives (never held whole); a tool's
  answer so dropped becomes an error answer to its call, naming the size and the limit.
- Text: the model gets at most `[mcp] max_result_chars` characters of an answer, with a line
  saying how much was cut (images and binary blocks are described with their size, never
  included).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import AsyncIterator
from contextvars import ContextVar
from typing import Any

from valarmind_tui.tools.base import ToolResult

MESSAGE_CAP_CHARS: ContextVar[int | None] = ContextVar("valarmind_mcp_message_cap",
                                                       default=None)
"""Set in a server's owner task: the stdio reader started there drops longer lines."""
HEAD_CHARS = 200
"""What is kept of a dropped line: enough to find the id of the call it answers."""
_RESPONSE_HEAD = re.compile(
    r'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,'
    r'\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"result"\s*:')
INTERNAL_ERROR = -32603


def timed_out(server: str, tool: str, limit_s: float) -> ToolResult:
    """The error the model gets for a call that ran out of time."""
    return ToolResult.error(
        f"MCP server {server!r}: {tool} did not answer within {limit_s:g} s (its time limit, "
        "tool_timeout_s in the [mcp] config or the server's entry); the call was cancelled.")


def cap_text(result: ToolResult, max_chars: int) -> ToolResult:
    """At most `max_chars` of the answer's text, ending with what was cut; structured data
    larger than that is left out (the text stands for it)."""
    output, data = result.output, result.data
    if data is not None and len(json.dumps(data, ensure_ascii=False, default=str)) > max_chars:
        data = None
    if len(output) > max_chars:
        output = (f"{output[:max_chars]}\n[cut: the answer had {len(output):,} characters; the "
                  f"first {max_chars:,} are kept, {len(output) - max_chars:,} were cut "
                  "(max_result_chars in the [mcp] config)]")
    if output is result.output and data is result.data:
        return result
    return dataclasses.replace(result, output=output, data=data)


def install_bounded_reader() -> None:
    """Make the SDK's stdio reader read through BoundedLines (once per process). Outside our
    servers' owner tasks (MESSAGE_CAP_CHARS unset) it reads as the SDK always did."""
    import mcp.client.stdio as stdio_module

    if getattr(stdio_module.TextReceiveStream, "_valarmind_bounded", False):
        return
    BoundedLines.text_stream = stdio_module.TextReceiveStream
    # why the ignore below: BoundedLines stands in for the SDK's TextReceiveStream (same use)
    stdio_module.TextReceiveStream = BoundedLines  # type: ignore[misc,assignment]  # why: above


class BoundedLines:
    """Text from a server's stdout, one whole line per item; lines over the cap dropped."""

    _valarmind_bounded = True
    text_stream: Any = None
    """anyio's TextReceiveStream (set at install)."""

    def __init__(self, transport_stream: Any, encoding: str = "utf-8",
                 errors: str = "strict") -> None:
        self._text = self.text_stream(transport_stream, encoding=encoding, errors=errors)
        self._cap = MESSAGE_CAP_CHARS.get()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines() if self._cap is not None else self._text.__aiter__()

    async def _lines(self) -> AsyncIterator[str]:
        cap = self._cap or 0
        parts: list[str] = []
        size = 0
        head = ""
        """Once the line is over the cap: its first HEAD_CHARS, the rest counted only."""
        async for chunk in self._text:
            start = 0
            while True:
                end = chunk.find("\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end]
                if size + len(piece) <= cap:
                    parts.append(piece)
                elif size <= cap:  # this piece takes the line over the cap
                    head = ("".join(parts) + piece[:HEAD_CHARS])[:HEAD_CHARS]
                    parts = []
                size += len(piece)
                if end < 0:
                    break
                line = "".join(parts) if size <= cap else _dropped(head, size, cap)
                parts, size, head, start = [], 0, "", end + 1
                if line:
                    yield line + "\n"


def _dropped(head: str, size: int, cap: int) -> str:
    """In place of a line over the cap: an error answer to the call it answered, when its
    head is a response's; else nothing (a call waiting on it ends at its time limit)."""
    match = _RESPONSE_HEAD.match(head)
    if match is None:
        return ""
    message = (f"the server's answer was {size / 1e6:,.1f} MB, over the limit of "
               f"{cap / 1e6:g} MB (max_message_mb in the [mcp] config): dropped unread")
    return json.dumps({"jsonrpc": "2.0", "id": json.loads(match.group(1)),
                       "error": {"code": INTERNAL_ERROR, "message": message}})
