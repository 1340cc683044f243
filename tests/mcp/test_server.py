"""`valarmind mcp serve` driven by the official MCP Python SDK client, over stdio and HTTP."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.fakes.model_server import ScriptedTurn
from tests.mcp.conftest import VALARMIND, free_port, wait_for_port

EXPECTED_TOOLS = {"review", "search", "init", "qa", "agent_delegate", "agent_decide",
                  "agent_analyze", "agent_extract", "agent_classify", "agent_summarize",
                  "agent_generate", "agent_compare"}


@contextlib.asynccontextmanager
async def stdio_session(repo: Path, *flags: str, env: dict[str, str] | None = None,
                        **session_kw: Any) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=VALARMIND, args=["mcp", "serve", "--cwd", str(repo), *flags],
        env={"HOME": os.environ["HOME"], "PATH": os.environ["PATH"], **(env or {})})
    async with stdio_client(params) as (read, write), \
            ClientSession(read, write, **session_kw) as session:
        await session.initialize()
        yield session


async def test_stdio_tools_listed_and_search_in_raw_mode(git_repo: Path) -> None:
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with stdio_session(git_repo) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == EXPECTED_TOOLS
        assert tools["search"].input_schema["required"] == ["query"]
        assert tools["agent_delegate"].input_schema["properties"]["goal"]["type"] == "string"
        result = await session.call_tool("search", {"query": "greet"},
                                         progress_callback=on_progress)
    assert not result.is_error
    assert result.meta == {"mode": "raw"}
    data = result.structured_content
    assert data["mode"] == "raw"
    assert data["raw_data"]["matches"][0] == {"path": "app.py", "line": 1,
                                              "text": "def greet(name):"}
    assert "match 'greet'" in data["summary"]
    assert progress[0] == "gathering data"


async def test_review_with_our_own_model(git_repo: Path, fake_model: Any) -> None:
    fake_model.script(ScriptedTurn(text="app.py:2 uses string concatenation; fine."))
    (git_repo / "app.py").write_text("def greet(name):\n    password = 'hunter2hunter2'\n")
    async with stdio_session(git_repo, "--model", "openai/fake-model",
                             "--api-base", fake_model.openai_base,
                             env={"OPENAI_API_KEY": "sk-test"}) as session:
        result = await session.call_tool("review", {})
    assert not result.is_error, result.content
    assert result.meta == {"mode": "own-model"}
    assert result.content[0].text == "app.py:2 uses string concatenation; fine."
    assert result.structured_content["llm_model"].endswith("fake-model")
    prompt = fake_model.requests[0]["messages"][-1]["content"]
    assert "hunter2hunter2" in prompt and "possible hard-coded secret" in prompt


async def test_agent_tool_thinks_with_the_clients_model(git_repo: Path) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant", model="client-model", stop_reason="endTurn",
            content=types.TextContent(type="text", text='{"category": "bug"}'))

    async with stdio_session(git_repo, sampling_callback=sampling) as session:
        result = await session.call_tool("agent_classify", {
            "content": "crash on start", "categories": ["bug", "feature"]})
    assert result.meta == {"mode": "sampling"}
    assert result.content[0].text == '{"category": "bug"}'
    assert result.structured_content["llm_model"] == "client-model"
    assert "crash on start" in asked[0].messages[0].content.text
    assert "classify" in asked[0].system_prompt


async def test_writes_refused_without_explicit_permission_mode(git_repo: Path) -> None:
    async with stdio_session(git_repo) as session:
        refused = await session.call_tool("init", {"write": True})
        draft = await session.call_tool("init", {})
    assert refused.is_error and "--permission-mode" in refused.content[0].text
    assert not (git_repo / "VALARMIND.md").exists()
    assert "# VALARMIND.md" in draft.structured_content["raw_data"]["draft"]
    async with stdio_session(git_repo, "--permission-mode", "accept-edits") as session:
        written = await session.call_tool("init", {"write": True})
    assert not written.is_error and written.structured_content["written"] == "VALARMIND.md"
    assert (git_repo / "VALARMIND.md").read_text().startswith("# VALARMIND.md")


async def test_streamable_http(git_repo: Path, http_process: list) -> None:
    port = free_port()
    proc = subprocess.Popen([VALARMIND, "mcp", "serve", "--cwd", str(git_repo),
                             "--http", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    http_process.append(proc)
    wait_for_port(port, proc)
    async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        result = await session.call_tool("search", {"query": "demo"})
    assert names == EXPECTED_TOOLS
    assert result.meta == {"mode": "raw"}
    assert result.structured_content["raw_data"]["matches"][0]["path"] == "README.md"

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        return types.CreateMessageResult(
            role="assistant", model="ide-model",
            content=types.TextContent(type="text", text="short summary"))

    async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
            ClientSession(read, write, sampling_callback=sampling) as session:
        await session.initialize()
        summary = await session.call_tool("agent_summarize", {"content": "a long text"})
    assert summary.meta == {"mode": "sampling"}
    assert summary.content[0].text == "short summary"
