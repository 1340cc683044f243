"""`valarmind mcp serve` with our own model: its calls go into the person's ledger, one stored
session per server process, by the served tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.mcp.server.test_serve import stdio_session
from tests.spending.test_ledger import served_totals
from tests.test_headless import valarmind


async def test_the_servers_model_calls_are_in_the_ledger(git_repo: Path, fake_model: Any) -> None:
    found = {"query": "greet", "summary": "greet is in app.py", "confidence": 0.9,
             "findings": [{"file": "app.py", "line": 1, "snippet": "def greet(name):"}]}
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "grep", "arguments": {"pattern": "def greet"}}],
                     usage={"prompt_tokens": 400, "completion_tokens": 20, "cached_tokens": 256}),
        ScriptedTurn(text=json.dumps(found), usage={"prompt_tokens": 500, "completion_tokens": 60}),
    )
    async with stdio_session(git_repo, "--model", "openai/fake-model",
                             "--api-base", fake_model.openai_base,
                             env={"OPENAI_API_KEY": "sk-test"}) as session:
        search = await session.call_tool("search", {"query": "greet"})
    assert not search.is_error, search.content
    out = valarmind("cost", "--json", cwd=git_repo)
    assert out.returncode == 0, out.stderr
    ledger = json.loads(out.stdout)
    assert {k: ledger[k] for k in served_totals(fake_model)} == served_totals(fake_model)
    assert ledger["by_tool"]["search"]["calls"] == 2
    assert ledger["by_agent"] == {"search-1": ledger["by_tool"]["search"]}
