"""How long until a stalled stream is reported: the fake model server (tests/fakes) goes silent
before its first chunk, half-way, or sends a byte a second, in both wire formats, through
LiteLLM over real HTTP; the provider's deadlines are set to 3 s (first chunk) and 2 s (between
chunks). The figure is the time from the request to the ProviderError: the deadline plus what
it costs to notice it (before #37: never, until the orchestrator's 30-minute limit).

And how long until a dead MCP call is reported: a real `valarmind -p` whose model calls a tool of
a real stdio MCP server (tests/fixtures/mcp/unruly_server.py) that never answers, with
`tool_timeout_s = 2`; the figure is the gap between the model request that called the tool and
the next one, which carries the error (before #27: the orchestrator's 30 minutes)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FIRST_BYTE_S, IDLE_S = 3.0, 2.0
MCP_LIMIT_S = 2.0
UNRULY = REPO / "tests" / "fixtures" / "mcp" / "unruly_server.py"


async def _reported_after(server: Any, fmt: str, fault: str | None) -> float:
    from tests.fakes.model_server import ScriptedTurn
    from valarmind_tui.core.errors import ProviderError
    from valarmind_tui.providers.base import ModelRequest
    from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

    base = server.anthropic_base if fmt == "anthropic" else server.openai_base
    server.script(ScriptedTurn(text="some words first", fault=fault, stall_s=30))
    provider = LiteLLMProvider(ProviderConfig(
        model=f"{fmt}/fake-model", api_base=base, api_key="sk-bench-key", max_retries=0,
        first_byte_timeout_s=FIRST_BYTE_S, stream_idle_timeout_s=IDLE_S))
    started = time.monotonic()
    try:
        async for _piece in provider.stream(ModelRequest(messages=[
                {"role": "user", "content": "hi"}])):
            pass
    except ProviderError:
        return time.monotonic() - started
    return time.monotonic() - started  # a warm-up (fault None) answers


async def _measure() -> list[dict[str, Any]]:
    from tests.fakes.model_server import FakeModelServer

    rows = []
    with FakeModelServer() as server:
        for fmt in ("openai", "anthropic"):
            await _reported_after(server, fmt, None)  # the provider SDK's first import
            for fault, deadline in (("stall_first", FIRST_BYTE_S), ("stall_mid", IDLE_S),
                                    ("trickle", FIRST_BYTE_S)):
                seconds = await _reported_after(server, fmt, fault)
                rows.append({"name": f"stall reported: {fmt} {fault}", "value": seconds,
                             "unit": "s", "target": f"<= {deadline + 0.5:g}"})
    return rows


def _dead_mcp_call_reported_after() -> float:
    from tests.fakes.model_server import FakeModelServer, ScriptedTurn

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        base = Path(tmp)
        home, repo = base / "home", base / "repo"
        config = home / ".config" / "valarmind"
        config.mkdir(parents=True)
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        (config / "config.toml").write_text(
            'api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n'
            f"[mcp]\ntool_timeout_s = {MCP_LIMIT_S:g}\n"
            f"[mcp.servers.unruly]\ncommand = {json.dumps(sys.executable)}\n"
            f"args = [{json.dumps(str(UNRULY))}, {json.dumps(str(base))}]\n")
        server.script(ScriptedTurn(tool_calls=[{"name": "mcp__unruly__hang", "arguments": {}}]),
                      ScriptedTurn(text="Finished."))
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_DATA_HOME": str(home / ".local" / "share"),
               "XDG_STATE_HOME": str(home / ".local" / "state"), "FAKE_API_KEY": "sk-bench"}
        subprocess.run([sys.executable, "-m", "valarmind_tui", "-p", "use the tool",
                        "--permission-mode", "bypass", "--model", "openai/fake-model",
                        "--api-base", server.openai_base], cwd=repo, env=env,
                       capture_output=True, timeout=120, check=False)
        times = server.request_times
        return times[1] - times[0] if len(times) >= 2 else float("inf")


def run() -> list[dict[str, Any]]:
    rows = asyncio.run(_measure())
    rows.append({"name": "dead MCP call reported (tool_timeout_s = 2)",
                 "value": _dead_mcp_call_reported_after(), "unit": "s",
                 "target": f"<= {MCP_LIMIT_S + 1:g}"})
    return rows
