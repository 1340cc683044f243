"""How long until a stalled stream is reported: the fake model server (tests/fakes) goes silent
before its first chunk, half-way, or sends a byte a second, in both wire formats, through
LiteLLM over real HTTP; the provider's deadlines are set to 3 s (first chunk) and 2 s (between
chunks). The figure is the time from the request to the ProviderError: the deadline plus what
it costs to notice it (before #37: never, until the orchestrator's 30-minute limit)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FIRST_BYTE_S, IDLE_S = 3.0, 2.0


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


def run() -> list[dict[str, Any]]:
    return asyncio.run(_measure())
