"""Our sampling handler answering real servers' sampling/createMessage through the fake model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import mcp_types as types

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import Event, ToolCallFinished, ToolCallStarted
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.mcp_client.sampling import SamplingHandler
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.settings.config import McpServerConfig, McpSettings


def _handler(fake: Any, *, allow: bool = True, max_iterations: int = 5) -> tuple[
        SamplingHandler, EventBus, list[Event]]:
    bus = EventBus()
    events: list[Event] = []
    bus.add_listener(events.append)
    config = ProviderConfig(model="openai/fake-model", api_base=fake.openai_base,
                            api_key="sk-test", max_retries=0)
    handler = SamplingHandler(lambda: LiteLLMProvider(config), PolicyApprover(allow_sampling=allow),
                              bus, max_iterations=max_iterations)
    return handler, bus, events


async def test_everything_server_sampling_answered_by_our_model(
    tmp_path: Path, npm_servers: dict[str, Path], fake_model: Any
) -> None:
    fake_model.script(ScriptedTurn(text="Sampled by ValarMind"))
    handler, bus, _ = _handler(fake_model)
    manager = McpManager(McpSettings(), tmp_path, bus, sampling=handler, servers={
        "everything": McpServerConfig(command=str(npm_servers["everything"]))})
    try:
        assert await manager.start() == {"everything": "ready"}
        result = await manager.call_tool("everything", "trigger-sampling-request",
                                         {"prompt": "say hi", "maxTokens": 50})
    finally:
        await manager.close()
    assert not result.is_error
    assert "Sampled by ValarMind" in result.output
    sent = fake_model.requests[0]["messages"]
    assert sent[0] == {"role": "system", "content": "You are a helpful test server."}
    assert "say hi" in sent[1]["content"]
    assert [t["type"] for t in handler.trace] == ["agent_iteration", "agent_complete"]
    assert handler.trace[1]["success"] is True


async def test_refused_sampling_is_an_mcp_error(
    tmp_path: Path, npm_servers: dict[str, Path], fake_model: Any
) -> None:
    handler, bus, _ = _handler(fake_model, allow=False)
    manager = McpManager(McpSettings(), tmp_path, bus, sampling=handler, servers={
        "everything": McpServerConfig(command=str(npm_servers["everything"]))})
    try:
        await manager.start()
        result = await manager.call_tool("everything", "trigger-sampling-request",
                                         {"prompt": "say hi"})
    finally:
        await manager.close()
    assert result.is_error and "User rejected sampling request" in result.output
    assert fake_model.requests == []


async def test_tool_loop_with_our_own_server(git_repo: Path, fake_model: Any) -> None:
    """SEP-1577 end to end: `valarmind mcp serve` asks for sampling with tools, our handler's
    model calls read_file, the server runs it and asks again, the model answers."""
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "README.md"},
                                  "id": "call_1"}]),
        ScriptedTurn(text="The README is a demo title."),
    )
    handler, bus, events = _handler(fake_model)
    valarmind = str(Path(sys.executable).parent / "valarmind")
    manager = McpManager(McpSettings(), git_repo, bus, sampling=handler, servers={
        "vm": McpServerConfig(command=valarmind, args=["mcp", "serve", "--cwd", str(git_repo)])})
    try:
        assert await manager.start() == {"vm": "ready"}
        result = await manager.call_tool("vm", "agent_delegate", {
            "goal": "What does README.md say?", "allowedTools": ["read_*"]})
    finally:
        await manager.close()
    assert not result.is_error, result.output
    assert result.output == "The README is a demo title."
    assert result.data["mode"] == "sampling"
    first, second = fake_model.requests
    assert [t["function"]["name"] for t in first["tools"]] == [
        "read_file", "read_many_files"]  # the built-in read tools matching allowedTools
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool_msg["tool_call_id"] == "call_1" and "# demo" in tool_msg["content"]
    kinds = [(t["type"], t.get("tool_calls")) for t in handler.trace]
    assert kinds == [("agent_iteration", ["read_file"]), ("agent_iteration", []),
                     ("agent_complete", None)]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.name for e in started] == ["read_file"] and finished[0].status == "ok"
    assert "# demo" in finished[0].output


def _params(**kw: Any) -> types.CreateMessageRequestParams:
    text = types.TextContent(type="text", text="check the repo")
    return types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=text), *kw.pop("extra", [])],
        max_tokens=100, **kw)


def _tool(name: str) -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object", "properties": {}})


async def test_allowed_patterns_filter_the_offered_tools(fake_model: Any) -> None:
    fake_model.script(ScriptedTurn(tool_calls=[{"name": "git_status", "arguments": {},
                                                "id": "c1"}]))
    handler, _, _ = _handler(fake_model)
    result = await handler.handle("srv", _params(
        tools=[_tool("git_status"), _tool("write_file")],
        metadata={"allowedToolPatterns": ["git_*"]}))
    assert [t["function"]["name"] for t in fake_model.requests[0]["tools"]] == ["git_status"]
    assert result.stop_reason == "toolUse"
    assert [(b.type, b.name) for b in result.content] == [("tool_use", "git_status")]


async def test_max_iterations_stops_without_calling_the_model(fake_model: Any) -> None:
    handler, _, _ = _handler(fake_model, max_iterations=5)
    use = types.ToolUseContent(type="tool_use", id="c1", name="git_status", input={})
    done = types.ToolResultContent(type="tool_result", tool_use_id="c1",
                                   content=[types.TextContent(type="text", text="clean")])
    turns = [types.SamplingMessage(role="assistant", content=[use]),
             types.SamplingMessage(role="user", content=[done])] * 2
    result = await handler.handle("srv", _params(
        tools=[_tool("git_status")], metadata={"maxIterations": 2}, extra=turns))
    assert result.stop_reason == "maxTokens"
    assert "limit of 2 iterations" in result.content[0].text
    assert fake_model.requests == []
    assert handler.trace[-1]["type"] == "agent_complete" and handler.trace[-1]["success"] is False
