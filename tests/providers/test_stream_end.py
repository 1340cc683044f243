"""At a stream's end LiteLLM builds the whole response from every chunk, for its own logging,
before it hands out the provider's usage: ~140 ms of CPU after a ~2,000-chunk answer's last
words. It is given the chunks the usage depends on, and the usage that reaches us is the same."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers.litellm_call import DeltaEvent, completion_events, load_litellm
from valarmind_tui.providers.stream_end import needed_chunks

TEXT = "".join(f"word{n} " for n in range(400))
USAGE = {"prompt_tokens": 1234, "completion_tokens": 567}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_the_usage_is_the_providers_from_the_few_chunks_it_needs(
        fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch, wire: str) -> None:
    litellm = load_litellm()
    lean = litellm.stream_chunk_builder
    handed: list[list[Any]] = []

    def recorded(chunks: Any, *args: Any, **kwargs: Any) -> Any:
        handed.append(list(chunks))
        return lean(chunks, *args, **kwargs)

    monkeypatch.setattr(litellm, "stream_chunk_builder", recorded)
    fake_model.script(ScriptedTurn(text=TEXT, usage=USAGE))
    model, base = (("openai/gpt-4o", fake_model.openai_base) if wire == "openai"
                   else ("anthropic/claude-3-5-haiku-20241022", fake_model.anthropic_base))
    events = [e async for e in completion_events({
        "model": model, "api_base": base, "api_key": "sk-test", "stream": True,
        "stream_options": {"include_usage": True}, "_skip_mcp_handler": True,
        "messages": [{"role": "user", "content": "count"}]})]

    text = "".join(e.delta.content or "" for e in events if isinstance(e, DeltaEvent))
    usage = events[-1].usage
    assert text == TEXT
    assert (usage.prompt_tokens, usage.completion_tokens) == (1234, 567)
    assert handed and len(handed[0]) > 50  # LiteLLM kept every chunk of the answer
    kept = needed_chunks(handed[0])
    assert 2 <= len(kept) <= 4
    whole = lean.__wrapped__(handed[0])  # what LiteLLM built from them all
    ends = lean.__wrapped__(kept)
    assert (ends.usage.prompt_tokens, ends.usage.completion_tokens) == (
        whole.usage.prompt_tokens, whole.usage.completion_tokens) == (1234, 567)


def test_chunks_it_cannot_read_are_kept() -> None:
    odd = [{"choices": []}, {"choices": None}, {"choices": [{"delta": {}}]}, {"choices": 3},
           {"choices": [{"finish_reason": "stop"}]}, {"usage": {"total_tokens": 1}}, {"id": 1}]
    assert needed_chunks(odd) == [odd[0], odd[1], odd[3], odd[4], odd[5], odd[6]]
    assert needed_chunks("not a list") == "not a list"
