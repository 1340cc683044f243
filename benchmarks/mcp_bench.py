"""MCP client start-up: time from start() to every configured server's tools listed.

Three real servers started in parallel (npm filesystem, PyPI mcp-server-git, npm everything),
compared with the slowest single server (the floor for a parallel start) and their sum (what a
sequential start would cost). Needs the npm servers (tests/mcp/conftest.py installs them).

Schemas on demand: the tokens the model is sent for a 120-tool server
(tests/fixtures/mcp/many_tools_server.py) with full schemas and in short form (names, one line,
plus mcp_tool_schema), counted as /context counts them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _configs(root: Path) -> dict:
    from tests.mcp.conftest import install_npm_servers
    from valarmind_tui.settings.config import McpServerConfig

    bins = install_npm_servers()
    git = str(Path(sys.executable).parent / "mcp-server-git")
    return {
        "filesystem": McpServerConfig(command=str(bins["filesystem"]), args=[str(root)]),
        "git": McpServerConfig(command=git, args=["--repository", str(root)]),
        "everything": McpServerConfig(command=str(bins["everything"])),
    }


async def _measure(root: Path, configs: dict) -> tuple[float, dict[str, float], int]:
    from valarmind_tui.core.bus import EventBus
    from valarmind_tui.mcp_client.manager import McpManager
    from valarmind_tui.settings.config import McpSettings
    from valarmind_tui.tools.registry import ToolRegistry

    manager = McpManager(McpSettings(), root, EventBus(), servers=configs)
    try:
        started = time.perf_counter()
        states = await manager.start()
        registry = ToolRegistry()
        manager.register_into(registry)
        elapsed = time.perf_counter() - started
        if set(states.values()) != {"ready"}:
            raise RuntimeError(f"servers did not start: {manager.status()}")
        per_server = {r.name: r.start_s or 0.0 for r in manager.status()}
        return elapsed, per_server, len(registry)
    finally:
        await manager.close()


async def _schema_tokens() -> tuple[int, int, int]:
    from valarmind_tui.context.tokens import count_json_tokens
    from valarmind_tui.core.bus import EventBus
    from valarmind_tui.mcp_client.manager import McpManager
    from valarmind_tui.settings.config import McpServerConfig, McpSettings
    from valarmind_tui.tools.registry import ToolRegistry

    script = REPO / "tests" / "fixtures" / "mcp" / "many_tools_server.py"
    config = McpServerConfig(command=sys.executable, args=[str(script)])
    manager = McpManager(McpSettings(), REPO, EventBus(), servers={"inventory": config},
                         count_tokens=count_json_tokens)
    try:
        await manager.start()
        registry = ToolRegistry()
        manager.register_into(registry)
        full = sum(count_json_tokens(s) for s in registry.schemas())
        manager.schema_budget = 0  # below any server: short form
        manager.register_into(registry)
        short = sum(count_json_tokens(s) for s in registry.schemas())
        return len(registry) - 1, full, short
    finally:
        await manager.close()


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        configs = _configs(root)
        asyncio.run(_measure(root, configs))  # warm-up: OS caches, node module cache
        elapsed, per_server, tools = asyncio.run(_measure(root, configs))
    return [
        {"name": "mcp: 3 servers started in parallel, tools listed", "value": elapsed,
         "unit": "s", "target": "≈ slowest server, < 10 s"},
        {"name": "mcp: slowest single server", "value": max(per_server.values()), "unit": "s"},
        {"name": "mcp: sum of the servers (sequential cost)", "value": sum(per_server.values()),
         "unit": "s"},
        {"name": "mcp: tools registered", "value": tools, "unit": "tools"},
        *_schema_rows(),
    ]


def _schema_rows() -> list[dict]:
    count, full, short = asyncio.run(_schema_tokens())
    return [
        {"name": f"mcp: schema tokens, {count} tools, full", "value": full, "unit": "tok"},
        {"name": f"mcp: schema tokens, {count} tools, on demand", "value": short, "unit": "tok",
         "target": "< 40% of full"},
        {"name": "mcp: schema tokens saved on demand", "value": round(100 * (1 - short / full), 1),
         "unit": "%"},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
