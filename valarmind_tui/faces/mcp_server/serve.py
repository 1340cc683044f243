"""`valarmind mcp serve`: the agents as MCP tools, over stdio or streamable HTTP (127.0.0.1).

Each call picks its mode (seed 003) and reports it in `structuredContent.mode` and `_meta.mode`:
- "sampling": the client declared sampling, so the agent thinks with the client's model
  (sampling/createMessage; with tools when the client supports them, SEP-1577: we run the tools);
- "own-model": a model and its key resolve here (usable, not merely configured), so ours thinks;
- "raw": neither; the gathered data and a one-line summary are returned for the caller's model.
When the thinking model fails, the raw answer is returned with `fallback_reason` (call.py).
Arguments are checked by strict pydantic models (params.py); every result fits the tool's
outputSchema (schema.py); every call runs under a time limit.
In both thinking modes the matching specialist runs in the project's agent loop (read-only tools,
plan-mode gate); its events become progress notifications.
Writes (init write=true) and commands (qa run=true) are refused unless the server was started
with an explicit --permission-mode that allows them.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from valarmind_tui import __version__
from valarmind_tui.core.bus import EventBus
from valarmind_tui.faces.mcp_server.call import run_with_limit, structured, timed_out
from valarmind_tui.faces.mcp_server.ledger import ServerLedger
from valarmind_tui.faces.mcp_server.params import ArgumentError, input_schema, parse_arguments
from valarmind_tui.faces.mcp_server.reviews import call_reviewers
from valarmind_tui.faces.mcp_server.schema import output_schema
from valarmind_tui.faces.mcp_server.think import Call, choose_provider, forward_progress
from valarmind_tui.faces.mcp_server.tools import ALL_TOOLS
from valarmind_tui.faces.mcp_server.usage import MeteredProvider
from valarmind_tui.session.wiring import trust_notices
from valarmind_tui.settings.config import Settings

WRITE_MODES = ("accept-edits", "bypass")
EXECUTE_MODES = ("bypass",)


class ValarMindMcpServer:
    """Tool handlers bound to one project, one permission policy and one time limit."""

    def __init__(self, settings: Settings, root: Path, *, explicit_mode: str | None = None,
                 tool_timeout_s: float | None = None) -> None:
        self.settings = settings
        self.root = root
        self.explicit_mode = explicit_mode
        self.tool_timeout_s = tool_timeout_s or settings.mcp.serve_tool_timeout_s
        self.ledger = ServerLedger(settings, root)

    def list_tools(self) -> list[Any]:
        import mcp_types as types

        return [
            types.Tool(name=t.name, description=t.description,
                       input_schema=input_schema(t.params), output_schema=output_schema(t.name),
                       annotations=types.ToolAnnotations(read_only_hint=t.read_only,
                                                         open_world_hint=False))
            for t in ALL_TOOLS.values()
        ]

    async def call_tool(self, ctx: Any, name: str, arguments: dict[str, Any]) -> Any:
        import mcp_types as types

        tool = ALL_TOOLS.get(name)
        if tool is None:
            return _error(f"unknown tool {name!r}; the tools are {', '.join(ALL_TOOLS)}")
        try:
            args = parse_arguments(name, tool.params, arguments)
        except ArgumentError as exc:
            return _error(str(exc))
        refusal = self._refusal(name, args)
        if refusal:
            return _error(refusal)
        started = time.perf_counter()
        progress = _Progress(ctx)
        provider, mode, note = choose_provider(ctx, self.settings)
        if provider is not None and mode == "own-model":
            provider = self.ledger.wrap(provider)
        metered = (MeteredProvider(provider, reports_usage=mode != "sampling")
                   if provider is not None else None)
        bus = EventBus()
        call = Call(self.root, args, self.settings, metered, bus,
                    explicit_mode=self.explicit_mode,
                    reviewers=call_reviewers(self.settings, provider, bus, name, arguments,
                                             wrap=self.ledger.wrap))
        await progress(f"{name}: {mode} mode")
        if mode == "own-model":  # LiteLLM's import (seconds) is not the agent's time to spend
            from valarmind_tui.providers.litellm_call import load_litellm

            await asyncio.to_thread(load_litellm)
        try:
            async with forward_progress(call.bus, progress, call):
                with self.ledger.call(name):
                    done = await run_with_limit(tool, call, mode, note, self.tool_timeout_s)
        except Exception as exc:  # gathering failed (a bad ref...): a result the caller can read
            return _error(f"{name} failed: {exc}")
        if done is None:
            text, data = timed_out(name, call, mode, self.tool_timeout_s, started)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        structured_content=data, is_error=True,
                                        _meta={"mode": mode})
        await progress("done")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=done.answer.text)],
            structured_content=structured(call, done, started), _meta={"mode": done.mode},
        )

    def _refusal(self, name: str, args: Any) -> str | None:
        if name == "init" and args.write and self.explicit_mode not in WRITE_MODES:
            return ("refused: writing VALARMIND.md needs the server to be started with "
                    "--permission-mode accept-edits (or bypass)")
        if name == "qa" and args.run and self.explicit_mode not in EXECUTE_MODES:
            return ("refused: running commands needs the server to be started with "
                    "--permission-mode bypass")
        return None


class _Progress:
    """notifications/progress for the current call (a no-op when no token was sent)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.step = 0

    async def __call__(self, message: str) -> None:
        self.step += 1
        try:
            await self.ctx.session.report_progress(float(self.step), None, message)
        except Exception:  # progress is best effort
            logging.getLogger(__name__).debug("progress failed", exc_info=True)


def _error(message: str) -> Any:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(type="text", text=message)],
                                is_error=True)


def build_server(settings: Settings, root: Path, *, explicit_mode: str | None = None,
                 tool_timeout_s: float | None = None) -> Any:
    """The low-level MCP Server with our handlers (no Rich logging handler is installed)."""
    import mcp_types as types
    from mcp.server.lowlevel.server import Server

    app = ValarMindMcpServer(settings, root, explicit_mode=explicit_mode,
                             tool_timeout_s=tool_timeout_s)

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=app.list_tools())

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        return await app.call_tool(ctx, params.name, dict(params.arguments or {}))

    return Server(
        "valarmind", version=__version__,
        instructions="ValarMind's agents as tools: review, search, init, qa and agent_*.",
        on_list_tools=on_list_tools, on_call_tool=on_call_tool,
    )


def _quiet_logging() -> None:
    """Logs go to stderr only: stdout is the protocol channel in stdio mode."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        stream = getattr(handler, "stream", None)
        if stream is sys.stdout or type(handler).__name__ == "RichHandler":
            root.removeHandler(handler)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    warnings.simplefilter("ignore")  # deprecation notices would only clutter stderr


def serve(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP)."""
    import anyio

    _quiet_logging()
    for notice in trust_notices(settings, root):
        print(f"valarmind: {notice}", file=sys.stderr, flush=True)
    server = build_server(settings, root, explicit_mode=getattr(args, "permission_mode", None),
                          tool_timeout_s=getattr(args, "tool_timeout", None))
    port = getattr(args, "http", None)
    if port is None:
        from mcp.server.stdio import stdio_server

        async def run_stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(run_stdio)
        return 0
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    # a keep-alive longer than clients' own (undici: 4 s), so the server never closes a
    # connection the client is just reusing (seen as "fetch failed" on a loaded machine)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            timeout_keep_alive=30)
    print(f"valarmind MCP server on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(config).run()
    return 0
