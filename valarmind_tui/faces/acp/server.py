"""`valarmind acp`: run the ACP agent on stdin/stdout until the client goes away.

stdout carries only protocol messages; logs go to stderr. Every line from the client passes a
guard first: a line that is not JSON gets a JSON-RPC parse error, one that is not an object an
invalid-request error, and the agent keeps serving (the SDK alone would drop the first silently
and stop on the second).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
import warnings
from typing import Any, cast

from valarmind_tui.faces.acp.agent import ValarMindAgent

STDIO_LIMIT = 50 * 1024 * 1024
"""Largest message accepted (embedded files can be big)."""


def serve(args: argparse.Namespace) -> int:
    _quiet_logging()
    flags = {"model": args.model, "api_base": args.api_base,
             "permission_mode": getattr(args, "permission_mode", None)}
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(ValarMindAgent(flags)))
    return 0


async def _serve(agent: ValarMindAgent) -> None:
    from acp.agent.connection import AgentSideConnection
    from acp.interfaces import Agent
    from acp.stdio import stdio_streams

    raw_reader, writer = await stdio_streams(limit=STDIO_LIMIT)
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    pump = asyncio.create_task(_guard(raw_reader, reader, writer))
    # The SDK's Agent Protocol lists every method, unstable ones included (fork, resume,
    # set_config_option, ext_*); its router looks each up by name and answers method-not-found
    # for those an agent leaves out, so an agent implementing a subset is what it expects.
    conn = AgentSideConnection(cast(Agent, agent), writer, reader, listening=False)
    try:
        await conn.listen()
    finally:
        pump.cancel()
        await agent.close()
        await asyncio.shield(conn.close())


async def _guard(source: asyncio.StreamReader, sink: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
    """Forward well-formed lines to the SDK; answer broken ones with a JSON-RPC error."""
    try:
        while True:
            try:
                line = await source.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
            except asyncio.LimitOverrunError as exc:
                await source.readexactly(exc.consumed)
                await _discard_line(source)
                _reply_error(writer, -32600, "Message too large: the limit is 50 MB.")
                continue
            if not line:
                break
            if not line.strip():
                continue
            problem = _problem(line)
            if problem is None:
                sink.feed_data(line if line.endswith(b"\n") else line + b"\n")
            else:
                _reply_error(writer, *problem)
    finally:
        sink.feed_eof()


async def _discard_line(source: asyncio.StreamReader) -> None:
    """Drop the rest of an over-long line."""
    while True:
        try:
            await source.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as exc:
            await source.readexactly(exc.consumed)
        except asyncio.IncompleteReadError:
            return


def _problem(line: bytes) -> tuple[int, str, Any] | None:
    """None when the line is a JSON-RPC object, else the error to send (code, message, id)."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        return (-32700, f"Parse error: the line is not JSON ({exc}). Send one JSON-RPC message "
                        "per line.", None)
    if not isinstance(message, dict):
        return (-32600, "Invalid request: a JSON-RPC message must be a JSON object.", None)
    if "method" in message and not isinstance(message["method"], str):
        return (-32600, "Invalid request: `method` must be a string.", message.get("id"))
    return None


def _reply_error(writer: asyncio.StreamWriter, code: int, message: str, id_: Any = None) -> None:
    payload = {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}
    writer.write((json.dumps(payload) + "\n").encode())


def _quiet_logging() -> None:
    """Logs go to stderr only: stdout is the protocol channel."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    warnings.simplefilter("ignore")
