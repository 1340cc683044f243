"""Streams that go wrong, over real HTTP in the OpenAI, Anthropic and Gemini wire formats: a
stream that ends before the model's finish is a failure the person sees (retried while nothing
was shown), never a whole answer; a stalled stream is reported as stalled within its deadline."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.core.errors import ProviderError
from valarmind_tui.providers.base import ModelRequest, RetryNotice, TextPiece, TurnComplete
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.providers.process import client as model_process

FORMATS = ("openai", "anthropic", "gemini")


def _cases(faults: tuple[str, ...], *, gemini_skips: tuple[str, ...] = ()) -> list[Any]:
    """(format, fault) pairs, but Gemini's in `gemini_skips` (tested on their own)."""
    return [(fmt, fault) for fmt in FORMATS for fault in faults
            if not (fmt == "gemini" and fault in gemini_skips)]


@pytest.fixture(scope="module", params=["here", "model-process"])
def where(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each case both ways litellm runs: on this process's model-io thread (headless) and in
    the model process (the TUI). One model process serves all its cases, as the TUI's serves
    every call of a session after a failed one (each start imports litellm: ~4 s a case)."""
    if request.param == "model-process":
        model_process.start()
    try:
        yield request.param
    finally:
        if request.param == "model-process":
            model_process.stop()


def provider(server: FakeModelServer, fmt: str, **overrides: Any) -> LiteLLMProvider:
    base = {"anthropic": server.anthropic_base, "gemini": server.gemini_base}.get(
        fmt, server.openai_base)
    settings: dict[str, Any] = {
        "model": f"{fmt}/fake-model", "api_base": base, "api_key": "sk-test-secret-123",
        "backoff_base_s": 0.01, "max_retries": 1, "timeout_s": 20,
        "first_byte_timeout_s": 10.0, "stream_idle_timeout_s": 5.0}
    settings.update(overrides)
    return LiteLLMProvider(ProviderConfig(**settings))


async def collect(p: LiteLLMProvider, seen: list[Any]) -> list[Any]:
    async for piece in p.stream(ModelRequest(messages=[{"role": "user", "content": "hi"}])):
        seen.append(piece)
    return seen


@pytest.mark.parametrize(("fmt", "fault"), _cases(("cut", "cut_mid_event")))
async def test_a_stream_cut_after_text_is_an_error_not_an_answer(
        fake_model: FakeModelServer, fmt: str, fault: str, where: str) -> None:
    fake_model.script(ScriptedTurn(text="The first half of the answer", fault=fault))
    seen: list[Any] = []
    with pytest.raises(ProviderError, match="the answer was cut off.*without the model's finish"):
        await collect(provider(fake_model, fmt), seen)
    assert any(isinstance(p, TextPiece) for p in seen)
    assert not any(isinstance(p, TurnComplete) for p in seen)
    assert len(fake_model.requests) == 1  # text was shown: not asked again


@pytest.mark.parametrize(("fmt", "fault"), _cases(("empty", "json_body", "cut"),
                                                  gemini_skips=("json_body",)))
async def test_a_stream_that_showed_nothing_is_retried_then_reported(
        fake_model: FakeModelServer, fmt: str, fault: str, where: str) -> None:
    # "cut" with no text: the stream ends before anything at all was shown
    fake_model.script(ScriptedTurn(text="" if fault == "cut" else "whole", fault=fault),
                      ScriptedTurn(text="the real answer"))
    pieces = await collect(provider(fake_model, fmt), [])
    notices = [p for p in pieces if isinstance(p, RetryNotice)]
    assert len(notices) == 1 and notices[0].message.startswith("the answer was cut off: ")
    assert pieces[-1].turn.text == "the real answer"

    fake_model.script(*[ScriptedTurn(text="x", fault=fault)] * 2)
    with pytest.raises(ProviderError, match="the answer was cut off"):
        await collect(provider(fake_model, fmt), [])


async def test_a_gemini_json_body_to_a_stream_is_its_whole_answer(
        fake_model: FakeModelServer, where: str) -> None:
    """LiteLLM's Gemini parser reads a JSON body as one chunk, finishReason included: nothing
    of the answer is missing, so it is the answer (OpenAI's and Anthropic's SDKs read no event
    in it, and it is retried as a stream that showed nothing)."""
    fake_model.script(ScriptedTurn(text="whole", fault="json_body"))
    pieces = await collect(provider(fake_model, "gemini"), [])
    assert not any(isinstance(p, RetryNotice) for p in pieces)
    assert pieces[-1].turn.text == "whole"
    assert len(fake_model.requests) == 1


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_whole_stream_still_completes(fake_model: FakeModelServer, fmt: str,
                                              where: str) -> None:
    fake_model.script(ScriptedTurn(text="all of it", tool_calls=[
        {"name": "read_file", "arguments": {"path": "a"}}]))
    pieces = await collect(provider(fake_model, fmt), [])
    assert pieces[-1].turn.text == "all of it"
    assert [c.name for c in pieces[-1].turn.tool_calls] == ["read_file"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("fault", "said"), [
    ("stall_first", "no answer from the model within 2 s of the request"),
    ("stall_mid", "no data from the model for 1 s after"),
    ("trickle", "no data from the model for 1 s after|within 2 s"),
])
async def test_a_stalled_stream_is_reported_within_its_deadline(
        fake_model: FakeModelServer, fmt: str, fault: str, said: str, where: str) -> None:
    fake_model.script(ScriptedTurn(text="some words first", fault=fault, stall_s=20))
    with pytest.raises(ProviderError, match=said):
        await collect(provider(fake_model, fmt, first_byte_timeout_s=2.0,
                               stream_idle_timeout_s=1.0), [])
    # from the request's arrival: the model process's start (litellm's import) is not counted;
    # on a loaded machine the first-byte deadline can pass before the request even arrives.
    # Told within its 1-2 s deadline, not after the 20 s stall (slack for a loaded machine)
    if fake_model.request_times:
        assert time.monotonic() - fake_model.request_times[0] < 10
    assert len(fake_model.requests) <= 1  # a stall is told at once, not waited out again


@pytest.mark.parametrize("where", ["here"], indirect=True)
async def test_an_unreadable_anthropic_stream_is_told_without_litellms_traceback(
        fake_model: FakeModelServer, where: str) -> None:
    fake_model.replay({"headers": {}, "sse_event_names": ["message_start"],
                       "sse_events": ['{"type": "message_start", "message": 5}']})
    with pytest.raises(ProviderError) as caught:
        await collect(provider(fake_model, "anthropic"), [])
    said = str(caught.value)
    assert said.startswith("anthropic/fake-model: the stream failed: ")
    assert "Traceback" not in said and "github.com" not in said and "litellm." not in said
    assert len(said) < 200
