"""Agent-loop overhead per turn beyond model and tool time (target < 5 ms).

A Session runs N turns against the zero-latency fake model server; each turn asks for a glob
tool call. Time spent inside the provider's stream and inside the tool is measured and subtracted
from the wall time; what remains is the loop's own cost (gate, events, history, schemas).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from pydantic import BaseModel

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers.base import ModelRequest, Provider, StreamChunk
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings
from valarmind_tui.tools.base import Tool, ToolContext, ToolResult

TURNS = 40


class _Clock:
    model = 0.0
    tool = 0.0


class _TimedProvider:
    def __init__(self, inner: Provider, clock: _Clock) -> None:
        self._inner, self._clock = inner, clock

    @property
    def model(self) -> str:
        return self._inner.model

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        start = time.perf_counter()
        async for chunk in self._inner.stream(request):
            self._clock.model += time.perf_counter() - start
            yield chunk
            start = time.perf_counter()
        self._clock.model += time.perf_counter() - start


def _timed_tool(inner: Tool, clock: _Clock) -> Tool:
    class Timed(type(inner)):  # type: ignore[misc]
        async def run(self, params: BaseModel, ctx: ToolContext) -> ToolResult:
            start = time.perf_counter()
            try:
                return await inner.run(params, ctx)
            finally:
                clock.tool += time.perf_counter() - start

    return Timed()


async def _measure(root: Path, server: FakeModelServer) -> tuple[float, _Clock]:
    os.environ["FAKE_API_KEY"] = "sk-bench"
    settings = load_settings(root, model="openai/fake-model", api_base=server.openai_base,
                             api_key_env="FAKE_API_KEY", max_turns=TURNS + 5)
    session = build_session(settings, root, approver=PolicyApprover())
    clock = _Clock()
    session.models.built = _TimedProvider(session.provider(), clock)
    session.tools.register(_timed_tool(session.tools.get("glob"), clock))
    call = {"name": "glob", "arguments": {"pattern": "*.py"}}
    server.script(ScriptedTurn(text="warm-up"))
    await session.submit("warm up")  # imports and first-connection costs are not per-turn
    clock.model = clock.tool = 0.0
    server.script(*[ScriptedTurn(tool_calls=[call]) for _ in range(TURNS - 1)],
                  ScriptedTurn(text="done"))
    start = time.perf_counter()
    result = await session.submit("go")
    wall = time.perf_counter() - start
    assert result.status == "done", result
    await session.close()
    return wall, clock


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        root = Path(tmp)
        for i in range(20):
            (root / f"m{i}.py").write_text("x = 1\n")
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        wall, clock = asyncio.run(_measure(root, server))
    overhead = (wall - clock.model - clock.tool) / TURNS * 1000
    return [
        {"name": f"agent loop overhead per turn ({TURNS} turns)", "value": overhead,
         "unit": "ms", "target": "< 5"},
        {"name": "  model time per turn (fake server, LiteLLM)", "value":
         clock.model / TURNS * 1000, "unit": "ms", "target": ""},
        {"name": "  tool time per turn (glob)", "value": clock.tool / TURNS * 1000, "unit": "ms",
         "target": ""},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
