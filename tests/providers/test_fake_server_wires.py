"""The fake model server's Responses API and Gemini wire formats, read by real LiteLLM over HTTP:
what Codex CLI and Gemini CLI are answered with in benchmarks/peers_bench.py is what LiteLLM's
parsers of those APIs accept."""

from __future__ import annotations

import json
import threading
from typing import Any

import litellm
import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.providers.test_litellm_provider import collect, collect_released, final, provider
from valarmind_tui.core.errors import ProviderError
from valarmind_tui.providers.base import ReasoningPiece, TextPiece

TOOL = {"type": "function", "name": "read_file", "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}


def _responses(server: FakeModelServer, stream: bool) -> Any:
    # a model LiteLLM knows to stream natively: for an unknown one it asks for the whole answer
    # and cuts it into pieces itself, and the server's stream would go unread
    return litellm.responses(model="openai/gpt-4.1", input="hi", tools=[TOOL],
                             api_base=server.openai_base, api_key="sk-test", stream=stream)


def test_a_streamed_responses_answer_is_read_by_litellm(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="Reading it now.", reasoning="The file first.",
                                   chunk_size=4, usage={"prompt_tokens": 40,
                                                        "completion_tokens": 9},
                                   tool_calls=[{"name": "read_file",
                                                "arguments": {"path": "a.py"}}]))
    events = list(_responses(fake_model, stream=True))
    kinds = [str(getattr(e.type, "value", e.type)) for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    summary = "".join(e.delta for e in events
                      if e.type == "response.reasoning_summary_text.delta")
    arguments = "".join(e.delta for e in events
                        if e.type == "response.function_call_arguments.delta")
    assert (text, summary, json.loads(arguments)) == (
        "Reading it now.", "The file first.", {"path": "a.py"})
    assert kinds.count("response.output_text.delta") == 4  # streamed in pieces, not whole
    done = events[-1].response
    assert [item.type for item in done.output] == ["reasoning", "message", "function_call"]
    assert done.output[2].name == "read_file" and done.output[2].call_id == "call_fake_0"
    assert (done.usage.input_tokens, done.usage.output_tokens) == (40, 9)
    request = fake_model.requests[0]
    assert fake_model.request_paths == ["/v1/responses"]
    assert request["stream"] is True and request["tools"][0]["name"] == "read_file"


def test_a_whole_responses_answer_is_read_by_litellm(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="All of it."))
    answer = _responses(fake_model, stream=False)
    assert answer.output[0].content[0].text == "All of it."
    assert answer.status == "completed"
    assert not fake_model.requests[0].get("stream")


def test_a_responses_error_mid_stream_reaches_the_reader(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="Half", stream_error="the model fell over"))
    read: list[Any] = []
    with pytest.raises(litellm.exceptions.MidStreamFallbackError, match="in-stream error"):
        read.extend(_responses(fake_model, stream=True))
    assert "".join(e.delta for e in read if e.type == "response.output_text.delta") == "Half"
    assert all(e.type != "response.completed" for e in read)


async def test_a_streamed_gemini_answer_arrives_in_pieces(fake_model: FakeModelServer) -> None:
    more = threading.Event()
    fake_model.script(ScriptedTurn(text="Gemini speaks in pieces.", reasoning="Short thought.",
                                   chunk_size=6, pause_until=more, usage={"prompt_tokens": 30,
                                                                          "completion_tokens": 8}))
    pieces = await collect_released(provider(fake_model, "gemini"), more)
    turn = final(pieces)
    assert turn.text == "Gemini speaks in pieces."
    assert turn.reasoning == "Short thought."
    assert [p.text for p in pieces if isinstance(p, TextPiece)][0] == "Gemini"  # before the rest
    assert any(isinstance(p, ReasoningPiece) for p in pieces)
    assert (turn.usage.prompt_tokens, turn.usage.completion_tokens) == (30, 8)
    assert fake_model.request_paths == ["/models/fake-model:streamGenerateContent"]
    assert fake_model.requests[0]["contents"][-1]["parts"] == [{"text": "hi"}]


@pytest.mark.parametrize("status", [400, 429])
async def test_a_gemini_error_is_told_with_googles_message(fake_model: FakeModelServer,
                                                           status: int) -> None:
    fake_model.script(*[ScriptedTurn(status=status, error="quota of the fake project")] * 3)
    with pytest.raises(ProviderError, match="quota of the fake project"):
        await collect(provider(fake_model, "gemini", max_retries=0, max_rate_limit_retries=0))
