"""LiteLLMProvider against the fake model server, scripted: retries, errors, tool calls, replay."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.core.errors import AuthError, ProviderError
from valarmind_tui.providers.base import (
    AssistantTurn,
    ModelRequest,
    ReasoningPiece,
    RetryNotice,
    TextPiece,
    TurnComplete,
)
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}]


def provider(server: FakeModelServer, fmt: str = "openai", **overrides: Any) -> LiteLLMProvider:
    base = {"anthropic": server.anthropic_base, "gemini": server.gemini_base}.get(
        fmt, server.openai_base)
    settings: dict[str, Any] = {
        "model": f"{fmt}/fake-model", "api_base": base, "api_key": "sk-test-secret-123",
        "api_key_env": "FAKE_API_KEY", "backoff_base_s": 0.01, "default_retry_after_s": 0.01,
        "max_retry_wait_s": 5, "timeout_s": 20,
    }
    settings.update(overrides)
    return LiteLLMProvider(ProviderConfig(**settings))


async def collect(p: LiteLLMProvider, messages: list[dict[str, Any]] | None = None,
                  ) -> list[Any]:
    request = ModelRequest(messages=messages or [{"role": "user", "content": "hi"}],
                           tools=TOOLS)
    return [piece async for piece in p.stream(request)]


async def collect_released(p: LiteLLMProvider, more: threading.Event) -> list[Any]:
    """A stream that pauses after its first text (ScriptedTurn.pause_until) goes on once that
    text arrived here: pieces that arrive before then came while the model was answering."""
    pieces: list[Any] = []
    try:
        async for piece in p.stream(ModelRequest(messages=[{"role": "user", "content": "hi"}],
                                                 tools=TOOLS)):
            pieces.append(piece)
            if isinstance(piece, TextPiece):
                more.set()
    finally:
        more.set()
    return pieces


def final(pieces: list[Any]) -> AssistantTurn:
    assert isinstance(pieces[-1], TurnComplete)
    return pieces[-1].turn


async def test_429_waits_retry_after_then_succeeds(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(status=429, headers={"Retry-After": "0.3"}),
                      ScriptedTurn(text="after the wait"))
    started = time.monotonic()
    pieces = await collect(provider(fake_model, default_retry_after_s=30))
    elapsed = time.monotonic() - started
    notices = [p for p in pieces if isinstance(p, RetryNotice)]
    assert len(notices) == 1
    assert notices[0].status == 429 and notices[0].delay_s == pytest.approx(0.3)
    assert "rate limited" in notices[0].message
    assert elapsed >= 0.3
    assert final(pieces).text == "after the wait"
    assert len(fake_model.requests) == 2


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
async def test_429_without_header_uses_default_and_cap(fmt: str, fake_model: FakeModelServer
                                                       ) -> None:
    fake_model.script(ScriptedTurn(status=429), ScriptedTurn(status=429,
                                                             headers={"Retry-After": "9999"}),
                      ScriptedTurn(text="ok"))
    pieces = await collect(provider(fake_model, fmt, default_retry_after_s=0.05,
                                    max_retry_wait_s=0.1))
    delays = [p.delay_s for p in pieces if isinstance(p, RetryNotice)]
    assert delays == [pytest.approx(0.05), pytest.approx(0.1)]
    assert final(pieces).text == "ok"


async def test_429_gives_up_after_the_rate_limit_budget(fake_model: FakeModelServer) -> None:
    fake_model.script(*[ScriptedTurn(status=429, error="slow down") for _ in range(3)])
    p = provider(fake_model, max_rate_limit_retries=2)
    with pytest.raises(ProviderError, match="slow down") as info:
        await collect(p)
    assert info.value.status == 429
    assert fake_model.pending == 0


async def test_500_backs_off_exponentially_then_succeeds(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(status=500), ScriptedTurn(status=503),
                      ScriptedTurn(text="recovered"))
    pieces = await collect(provider(fake_model, backoff_base_s=0.02))
    delays = [p.delay_s for p in pieces if isinstance(p, RetryNotice)]
    assert delays == [pytest.approx(0.02), pytest.approx(0.04)]
    assert final(pieces).text == "recovered"


async def test_5xx_retries_are_bounded(fake_model: FakeModelServer) -> None:
    fake_model.script(*[ScriptedTurn(status=500, error="upstream broke") for _ in range(3)])
    with pytest.raises(ProviderError, match="upstream broke"):
        await collect(provider(fake_model, max_retries=2))
    assert len(fake_model.requests) == 3


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "ollama"])
async def test_a_refused_connection_is_said_with_its_address_at_once(fmt: str) -> None:
    """Nothing listens: no retry can help, so none is made (they took ~20 s and said
    "error 500: Connection error.", Ollama's with an SSLContext's address)."""
    with FakeModelServer() as server:
        dead = server.anthropic_base if fmt == "anthropic" else server.openai_base
    port = dead.split(":")[2].split("/")[0]
    p = LiteLLMProvider(ProviderConfig(model=f"{fmt}/fake-model", api_base=dead, api_key="k",
                                       max_retries=2, backoff_base_s=0.01))
    pieces: list[Any] = []
    with pytest.raises(ProviderError) as caught:
        async for piece in p.stream(ModelRequest(messages=[{"role": "user", "content": "x"}])):
            pieces.append(piece)
    assert pieces == []
    said = str(caught.value)
    assert f"cannot connect to 127.0.0.1:{port}: connection refused" in said
    assert "SSLContext" not in said and "litellm." not in said
    assert "error 500" not in said  # not the port: a random port may hold "500" (45009)


async def test_a_host_that_does_not_resolve_is_said_at_once() -> None:
    p = LiteLLMProvider(ProviderConfig(model="openai/fake-model", api_key="k", max_retries=2,
                                       api_base="http://no-such-host.invalid/v1",
                                       backoff_base_s=0.01))
    pieces: list[Any] = []
    with pytest.raises(ProviderError) as caught:
        async for piece in p.stream(ModelRequest(messages=[{"role": "user", "content": "x"}])):
            pieces.append(piece)
    assert pieces == []
    assert "cannot resolve no-such-host.invalid" in str(caught.value)


async def test_a_dropped_connection_is_still_retried(fake_model: FakeModelServer) -> None:
    """A server that answers and fails (5xx) may recover: retried as before."""
    fake_model.script(ScriptedTurn(status=503), ScriptedTurn(text="ok"))
    pieces = await collect(provider(fake_model, max_retries=2))
    assert [type(x) for x in pieces[:1]] == [RetryNotice]
    assert final(pieces).text == "ok"


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
async def test_401_is_an_auth_error_naming_the_variable(fmt: str, fake_model: FakeModelServer
                                                        ) -> None:
    fake_model.script(ScriptedTurn(status=401,
                                   error="Incorrect API key provided: sk-test-secret-123"))
    with pytest.raises(AuthError) as info:
        await collect(provider(fake_model, fmt))
    assert info.value.env_var == "FAKE_API_KEY"
    assert "FAKE_API_KEY" in str(info.value)
    assert "sk-test-secret-123" not in str(info.value)
    assert len(fake_model.requests) == 1


async def test_the_key_is_sent_to_the_server(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="hi"))
    await collect(provider(fake_model))
    assert fake_model.request_headers[0]["authorization"] == "Bearer sk-test-secret-123"


@pytest.mark.parametrize("status", [400, 404])
async def test_client_errors_are_not_retried(status: int, fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(status=status, error="model `nope` does not exist"))
    with pytest.raises(ProviderError, match="model `nope` does not exist") as info:
        await collect(provider(fake_model))
    assert info.value.status == status
    assert len(fake_model.requests) == 1


async def test_error_mid_stream_is_reported_not_retried(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="half an answer", stream_error="stream broke"),
                      ScriptedTurn(text="must not be requested"))
    pieces: list[Any] = []
    with pytest.raises(ProviderError, match="stream broke"):
        async for piece in provider(fake_model).stream(
                ModelRequest(messages=[{"role": "user", "content": "x"}])):
            pieces.append(piece)
    assert "".join(p.text for p in pieces if isinstance(p, TextPiece)) == "half an answer"
    assert len(fake_model.requests) == 1


async def test_an_exhausted_script_fails_fast_and_says_so(fake_model: FakeModelServer) -> None:
    started = time.monotonic()
    with pytest.raises(ProviderError, match="script ran out"):
        await collect(provider(fake_model, backoff_base_s=60, max_retry_wait_s=60))
    assert len(fake_model.requests) == 1  # not retried
    assert time.monotonic() - started < 30  # a retry would wait 60 s (LiteLLM's import may not)


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "gemini"])
async def test_tool_calls_arrive_parsed(fmt: str, fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="Reading.", chunk_size=3, tool_calls=[
        {"name": "read_file", "arguments": {"path": "src/app.py", "limit": 20}},
        {"name": "read_file", "arguments": {"path": "README.md"}}]))
    turn = final(await collect(provider(fake_model, fmt)))
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("read_file", {"path": "src/app.py", "limit": 20}), ("read_file", {"path": "README.md"})]
    assert turn.text == "Reading."
    assert all(c.parse_error is None for c in turn.tool_calls)
    tools = fake_model.requests[0]["tools"]
    if fmt == "gemini":  # Google's shape: one tool of function declarations
        tools = tools[0]["function_declarations"]
    sent = [t.get("name") or t["function"]["name"] for t in tools]
    assert sent == ["read_file"]


async def test_malformed_arguments_become_a_parse_error(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(tool_calls=[
        {"name": "edit_file", "arguments": '{"path": "a.py", "old_string": "x'},
        {"name": "bash", "arguments": "[1, 2]"},
        {"name": "git_status", "arguments": ""}]))
    broken, not_object, empty = final(await collect(provider(fake_model))).tool_calls
    assert broken.arguments == {} and broken.raw_arguments == '{"path": "a.py", "old_string": "x'
    assert broken.parse_error and "not valid JSON" in broken.parse_error
    assert not_object.parse_error and "JSON object" in not_object.parse_error
    assert empty.arguments == {} and empty.parse_error is None


async def test_missing_ids_get_unique_synthetic_ids(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(tool_calls=[
        {"name": "glob", "arguments": {"pattern": "*.py"}, "id": None},
        {"name": "grep", "arguments": {"pattern": "TODO"}, "id": ""},
        {"name": "read_file", "arguments": {"path": "a"}, "id": "call_given"}]))
    calls = final(await collect(provider(fake_model))).tool_calls
    assert [c.name for c in calls] == ["glob", "grep", "read_file"]
    assert calls[2].id == "call_given"
    assert calls[0].id.startswith("call_") and calls[1].id.startswith("call_")
    assert len({c.id for c in calls}) == 3
    assert calls[1].arguments == {"pattern": "TODO"}


@pytest.mark.parametrize("prefix", ["deepseek", "moonshot", "openai"])
async def test_reasoning_content_is_replayed_in_history(prefix: str, fake_model: FakeModelServer
                                                        ) -> None:
    fake_model.script(ScriptedTurn(reasoning="I should read a.py first.", tool_calls=[
        {"name": "read_file", "arguments": {"path": "a.py"}}]), ScriptedTurn(text="Done."))
    p = provider(fake_model, prefix)
    pieces = await collect(p)
    turn = final(pieces)
    assert "".join(x.text for x in pieces if isinstance(x, ReasoningPiece)) == turn.reasoning
    history = [{"role": "user", "content": "hi"}, turn.to_message(),
               {"role": "tool", "tool_call_id": turn.tool_calls[0].id, "content": "x = 1"}]
    assert final(await collect(p, history)).text == "Done."
    sent = fake_model.requests[1]["messages"][1]
    assert sent["reasoning_content"] == "I should read a.py first."
    assert sent["tool_calls"][0]["id"] == turn.tool_calls[0].id


async def test_anthropic_thinking_blocks_are_replayed_with_signature(
        fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(reasoning="Plan: read the file.", signature="sig-abc",
                                   text="Let me look.", tool_calls=[
                                       {"name": "read_file", "arguments": {"path": "a.py"}}]),
                      ScriptedTurn(text="Done."))
    p = provider(fake_model, "anthropic")
    turn = final(await collect(p))
    assert turn.thinking_blocks == ({"type": "thinking", "thinking": "Plan: read the file.",
                                     "signature": "sig-abc"},)
    history = [{"role": "user", "content": "hi"}, turn.to_message(),
               {"role": "tool", "tool_call_id": turn.tool_calls[0].id, "content": "x = 1"}]
    await collect(p, history)
    content = fake_model.requests[1]["messages"][1]["content"]
    assert content[0] == {"type": "thinking", "thinking": "Plan: read the file.",
                          "signature": "sig-abc"}
    assert content[-1]["type"] == "tool_use" and content[-1]["id"] == turn.tool_calls[0].id


async def test_slow_chunks_stream_as_separate_pieces(fake_model: FakeModelServer) -> None:
    more = threading.Event()
    fake_model.script(ScriptedTurn(text="one two three four", chunk_size=5, pause_until=more))
    pieces = await collect_released(provider(fake_model), more)
    # pieces that reach the model-io thread's batch together are merged; the first words are
    # not held back until the end (the model waits for them to arrive before going on)
    texts = [p.text for p in pieces if isinstance(p, TextPiece)]
    assert texts[0] == "one t" and "".join(texts) == "one two three four"


async def test_usage_and_cost_come_from_the_stream(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="hi", usage={"prompt_tokens": 1000,
                                                     "completion_tokens": 500}),
                      ScriptedTurn(text="hi", usage={"prompt_tokens": 7,
                                                     "completion_tokens": 3}))
    known = final(await collect(provider(fake_model, model="openai/gpt-4.1")))
    assert (known.usage.prompt_tokens, known.usage.completion_tokens) == (1000, 500)
    assert known.usage.cost_usd is not None and known.usage.cost_usd > 0
    unknown = final(await collect(provider(fake_model)))
    assert (unknown.usage.prompt_tokens, unknown.usage.completion_tokens) == (7, 3)
    assert unknown.usage.cost_usd is None
    assert fake_model.requests[0]["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "gemini"])
async def test_non_streaming_mode(fmt: str, fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="whole", reasoning="thought", tool_calls=[
        {"name": "glob", "arguments": {"pattern": "*"}}]))
    turn = final(await collect(provider(fake_model, fmt, stream=False)))
    assert (turn.text, turn.reasoning) == ("whole", "thought")
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("glob", {"pattern": "*"})]
    assert not fake_model.requests[0].get("stream")


async def test_stopping_early_closes_the_stream(fake_model: FakeModelServer) -> None:
    # ~35 s to stream: closing must not wait for it (a loaded machine may take seconds to close)
    fake_model.script(ScriptedTurn(text="a long answer " * 500, chunk_size=4, chunk_delay_s=0.02),
                      ScriptedTurn(text="next"))
    p = provider(fake_model)
    stream = p.stream(ModelRequest(messages=[{"role": "user", "content": "x"}]))
    async for piece in stream:
        if isinstance(piece, TextPiece):
            break
    started = time.monotonic()
    await stream.aclose()  # type: ignore[attr-defined]
    assert time.monotonic() - started < 10
    assert final(await collect(p)).text == "next"
