"""`valarmind mcp serve` driven by the official MCP Python SDK client, over stdio and HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.fakes.model_server import ScriptedTurn
from tests.mcp.conftest import REPO, VALARMIND, free_port, wait_for_port

EXPECTED_TOOLS = {"review", "search", "init", "qa", "agent_delegate", "agent_decide",
                  "agent_analyze", "agent_extract", "agent_classify", "agent_summarize",
                  "agent_generate", "agent_compare"}


async def assert_fits_schema(session: ClientSession, *results: tuple[str, Any]) -> None:
    """Each (tool, result)'s structuredContent against the outputSchema the server lists."""
    schemas = {t.name: t.output_schema for t in (await session.list_tools()).tools}
    for name, result in results:
        jsonschema.validate(result.structured_content, schemas[name])


@contextlib.asynccontextmanager
async def stdio_session(repo: Path, *flags: str, env: dict[str, str] | None = None,
                        **session_kw: Any) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=VALARMIND, args=["mcp", "serve", "--cwd", str(repo), *flags],
        env={"HOME": os.environ["HOME"], "PATH": os.environ["PATH"], "PYTHONPATH": str(REPO),
             **(env or {})})
    async with stdio_client(params) as (read, write), \
            ClientSession(read, write, **session_kw) as session:
        await session.initialize()
        yield session


async def test_stdio_tools_listed_search_and_review_in_raw_mode(git_repo: Path) -> None:
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    (git_repo / "app.py").write_text("import os\n\ndef greet(name):\n    return 'Hi ' + name\n")
    async with stdio_session(git_repo) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == EXPECTED_TOOLS
        assert tools["search"].input_schema["required"] == ["query"]
        assert tools["agent_delegate"].input_schema["properties"]["goal"]["type"] == "string"
        result = await session.call_tool("search", {"query": "greet"},
                                         progress_callback=on_progress)
        review = await session.call_tool("review", {})
    assert not result.is_error
    assert result.meta == {"mode": "raw"}
    data = result.structured_content
    assert data["mode"] == "raw"
    assert data["raw_data"]["matches"] == [{"path": "app.py", "line": 3,
                                            "text": "def greet(name):"}]
    assert "match 'greet'" in data["summary"]
    assert data["tools_executed"] == ["glob", "grep"]  # the built-in tools ran
    assert progress[0] == "search: raw mode" and "mcp: grep" in progress[1]

    # review without a model: the diff and the linter's findings at file:line
    assert not review.is_error, review.content
    assert review.meta == {"mode": "raw"}
    raw = review.structured_content["raw_data"]
    assert "+import os" in raw["diff"] and raw["files"] == ["app.py"]
    assert {(f["file"], f["line"], f["source"]) for f in raw["findings"]
            if f["category"] == "lint"} == {("app.py", 1, "static:ruff")}
    assert "F401" in {f["message"].split()[0] for f in raw["findings"]}  # os imported, unused
    assert raw["model_ran"] is False and "model review was skipped" in " ".join(raw["notes"])
    assert "**app.py:1** `F401`" in review.content[0].text


async def test_search_and_review_run_our_agents(git_repo: Path, fake_model: Any) -> None:
    """Own-model mode: the search and review specialists run in the agent loop (tool calls,
    structured results) and their events reach the client as progress notifications."""
    found = {"query": "greet", "summary": "greet is defined in app.py", "confidence": 0.9,
             "findings": [{"file": "app.py", "line": 3, "snippet": "def greet(name):"}]}
    verdict = {"files_reviewed": ["app.py"], "summary": "one secret", "approved": False,
               "findings": [{"severity": "critical", "file": "app.py", "line": 4,
                             "message": "hard-coded password", "category": "security",
                             "suggested_fix": "read it from the environment"}]}
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "grep", "arguments": {"pattern": "def greet"}}]),
        ScriptedTurn(text=json.dumps(found)),
        ScriptedTurn(text=json.dumps(verdict)),
    )
    (git_repo / "app.py").write_text(
        "import os\n\ndef greet(name):\n    password = 'hunter2hunter2'\n    return name\n")
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with stdio_session(git_repo, "--model", "openai/fake-model",
                             "--api-base", fake_model.openai_base,
                             env={"OPENAI_API_KEY": "sk-test"}) as session:
        search = await session.call_tool("search", {"query": "greet"},
                                         progress_callback=on_progress)
        review = await session.call_tool("review", {})
        await assert_fits_schema(session, ("search", search), ("review", review))
    assert not search.is_error, search.content
    assert search.meta == {"mode": "own-model"}, search.structured_content.get("fallback_reason")
    assert search.structured_content["result"]["findings"][0]["line"] == 3
    assert search.structured_content["llm_model"].endswith("fake-model")
    assert search.structured_content["stopReason"] == "endTurn"
    usage = search.structured_content["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0  # both turns counted
    assert usage["cost_usd"] is None  # a model LiteLLM has no price for
    assert "grep" in search.structured_content["tools_executed"]
    assert "search agent started" in progress and "search agent done" in progress
    assert any(m.startswith("search-1: grep") for m in progress)
    tool_reply = next(m for m in fake_model.requests[1]["messages"] if m["role"] == "tool")
    assert "app.py:3:def greet(name):" in tool_reply["content"]  # the real grep ran

    assert not review.is_error, review.content
    assert review.meta == {"mode": "own-model"}
    findings = {(f["file"], f.get("line"), f["source"])
                for f in review.structured_content["result"]["findings"]}
    assert {("app.py", 1, "static:ruff"), ("app.py", 4, "model"),
            ("app.py", 4, "static:secrets")} <= findings
    assert "- **app.py:4** hard-coded password" in review.content[0].text
    assert "hunter2hunter2" not in review.content[0].text
    prompt = fake_model.requests[2]["messages"][-1]["content"]
    assert "+    password = '[secret redacted]'" in prompt  # the diff, its secret scrubbed
    assert "hunter2hunter2" not in prompt and "F401" in prompt  # and the linter's finding
    offered = {t["function"]["name"] for t in fake_model.requests[2]["tools"]}
    assert offered == {"read_file", "read_many_files", "glob", "grep", "git_diff", "git_status",
                       "repo_map"}  # the review spec's tools, nothing that writes or runs


async def test_agent_tools_think_with_the_clients_model(git_repo: Path) -> None:
    """Sampling mode: classify, review (over the same diff and linter findings) and init are
    thought through by the client's model; the client never gets tools it did not declare."""
    asked: list[types.CreateMessageRequestParams] = []
    verdict = {"summary": "risky", "approved": False, "findings": [
        {"severity": "major", "file": "app.py", "line": 2, "message": "eval of user input",
         "category": "security"}]}
    answers = {"classify": '{"category": "bug"}', "review agent": json.dumps(verdict),
               "init agent": json.dumps({"project_name": "demo", "sections": [
                   {"name": "Objective", "body": "Greets people."}]})}

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        text = next(v for k, v in answers.items() if k in (params.system_prompt or ""))
        return types.CreateMessageResult(
            role="assistant", model="client-model", stop_reason="endTurn",
            content=types.TextContent(type="text", text=text))

    (git_repo / "app.py").write_text("import os\ndef greet(name):\n    return eval(name)\n")
    async with stdio_session(git_repo, sampling_callback=sampling) as session:
        result = await session.call_tool("agent_classify", {
            "content": "crash on start", "categories": ["bug", "feature"]})
        review = await session.call_tool("review", {})
        init = await session.call_tool("init", {})
        await assert_fits_schema(session, ("agent_classify", result), ("review", review),
                                 ("init", init))
    assert result.meta == {"mode": "sampling"}
    assert result.content[0].text == '{"category": "bug"}'
    assert result.structured_content["llm_model"] == "client-model"
    assert result.structured_content["usage"]["prompt_tokens"] is None  # sampling tells none
    assert result.structured_content["stopReason"] == "endTurn"
    assert "crash on start" in asked[0].messages[0].content.text
    assert "classify" in asked[0].system_prompt
    assert all(p.tools is None for p in asked)

    assert review.meta == {"mode": "sampling"}, review.content
    found = {(f["file"], f.get("line"), f["source"])
             for f in review.structured_content["result"]["findings"]}
    assert {("app.py", 1, "static:ruff"), ("app.py", 3, "static:security"),
            ("app.py", 2, "model")} <= found
    review_prompt = asked[1].messages[-1].content.text
    assert "+    return eval(name)" in review_prompt and "F401" in review_prompt

    assert init.meta == {"mode": "sampling"}
    assert init.structured_content["result"]["drafted_without_model"] is False
    assert init.content[0].text.startswith("# demo") and "Greets people." in init.content[0].text
    assert not (git_repo / "VALARMIND.md").exists()


async def test_writes_refused_without_explicit_permission_mode(git_repo: Path) -> None:
    async with stdio_session(git_repo) as session:
        refused = await session.call_tool("init", {"write": True})
        draft = await session.call_tool("init", {})
    assert refused.is_error and "--permission-mode" in refused.content[0].text
    assert not (git_repo / "VALARMIND.md").exists()
    text = draft.structured_content["raw_data"]["draft"]
    assert text.startswith("# repo\n") and "## Objective" in text
    assert draft.content[0].text == text
    async with stdio_session(git_repo, "--permission-mode", "accept-edits") as session:
        written = await session.call_tool("init", {"write": True})
        qa = await session.call_tool("qa", {"run": True})
    assert not written.is_error and written.structured_content["written"] == "VALARMIND.md"
    assert (git_repo / "VALARMIND.md").read_text() == text
    assert qa.is_error and "--permission-mode bypass" in qa.content[0].text


async def test_qa_runs_detected_commands_only_in_bypass(git_repo: Path) -> None:
    (git_repo / "Makefile").write_text(
        "lint:\n\t@echo lint-ok\n\ntest:\n\t@echo 3 failed; exit 1\n")
    async with stdio_session(git_repo) as session:
        listed = await session.call_tool("qa", {})
    assert [c["command"] for c in listed.structured_content["raw_data"]["commands"]] == [
        "make lint", "make test"]
    assert "results" not in listed.structured_content["raw_data"]
    async with stdio_session(git_repo, "--permission-mode", "bypass") as session:
        ran = await session.call_tool("qa", {"run": True})
    assert not ran.is_error, ran.content
    results = {r["command"]: r for r in ran.structured_content["raw_data"]["results"]}
    assert results["make lint"]["passed"] and "lint-ok" in results["make lint"]["output"]
    assert not results["make test"]["passed"] and "3 failed" in results["make test"]["output"]
    assert "1 failed: make test" in ran.structured_content["summary"]
    assert ran.structured_content["tools_executed"] == ["bash"]


async def test_streamable_http(git_repo: Path, http_process: list) -> None:
    port = free_port()
    proc = subprocess.Popen([VALARMIND, "mcp", "serve", "--cwd", str(git_repo),
                             "--http", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
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


async def test_client_sampling_failure_falls_back_to_the_gathered_data(git_repo: Path) -> None:
    """The client declared sampling but its model fails: the tools answer in raw mode with the
    reason, and review keeps its diff and linter findings."""
    asked: list[str] = []

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params.system_prompt or "")
        return types.ErrorData(code=-32603, message="the user declined the sampling request")

    (git_repo / "app.py").write_text("import os\n\ndef greet(name):\n    return 'Hi ' + name\n")
    async with stdio_session(git_repo, sampling_callback=sampling) as session:
        review = await session.call_tool("review", {})
        summary = await session.call_tool("agent_summarize", {"content": "a long text"})
        await assert_fits_schema(session, ("review", review), ("agent_summarize", summary))
    assert len(asked) == 2  # the client's model was asked once per tool
    for result in (review, summary):
        assert not result.is_error, result.content
        data = result.structured_content
        assert data["mode"] == "raw" and data["stopReason"] == "modelError"
        assert data["fallback_reason"].startswith("the client's sampling failed: ")
        assert "the user declined the sampling request" in data["fallback_reason"]
        assert data["usage"] == {"prompt_tokens": None, "completion_tokens": None,
                                 "cost_usd": None}
    raw = review.structured_content["raw_data"]
    assert "+import os" in raw["diff"] and raw["model_ran"] is True
    assert any(f["message"].startswith("F401") for f in raw["findings"])
    assert summary.structured_content["raw_data"]["task"]["prompt"].endswith("a long text")


async def test_arguments_are_checked_strictly(git_repo: Path) -> None:
    """"false" is not a boolean and a string is not a list: an error naming the field, and
    nothing done (no VALARMIND.md written, no path read character by character)."""
    async with stdio_session(git_repo, "--permission-mode", "accept-edits") as session:
        write = await session.call_tool("init", {"write": "false"})
        paths = await session.call_tool("review", {"paths": "app.py"})
        missing = await session.call_tool("search", {})
        unknown = await session.call_tool("nope", {})
    assert write.is_error and write.content[0].text == (
        "invalid arguments for init: write: Input should be a valid boolean (got str 'false'); "
        "send true or false, not a string")
    assert write.structured_content is None
    assert not (git_repo / "VALARMIND.md").exists()
    assert paths.is_error and "send an array such as [\"app.py\"]" in paths.content[0].text
    assert missing.is_error and missing.content[0].text == (
        "invalid arguments for search: query: required")
    assert unknown.is_error and unknown.content[0].text.startswith("unknown tool 'nope'")


async def test_a_hanging_model_hits_the_time_limit_with_the_data_kept(git_repo: Path,
                                                                     fake_model: Any) -> None:
    fake_model.script(ScriptedTurn(text="too late", chunk_delay_s=60))
    async with stdio_session(git_repo, "--model", "openai/fake-model", "--api-base",
                             fake_model.openai_base, "--tool-timeout", "5",
                             env={"OPENAI_API_KEY": "sk-test"}) as session:
        result = await session.call_tool("search", {"query": "greet"})
        await assert_fits_schema(session, ("search", result))
    assert result.is_error
    data = result.structured_content
    assert data["stopReason"] == "timeout" and data["mode"] == "own-model"
    assert data["error"].startswith("search: the time limit of 5 s ran out")
    assert data["raw_data"]["matches"] == [{"path": "app.py", "line": 1,
                                            "text": "def greet(name):"}]
    assert "data gathered so far" in result.content[0].text
    assert len(fake_model.requests) == 1  # the model was asked, and never finished
