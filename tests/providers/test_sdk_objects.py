"""providers/sdk_objects.py: the OpenAI SDK's response objects built by pydantic's validator are
the objects the SDK builds itself, data its models reject is built the SDK's way, and a stream
through LiteLLM reads the same answer."""

from __future__ import annotations

from typing import Any

import openai._base_client as sdk_client
import openai._models as sdk_models
import pytest
from openai.types.chat import ChatCompletionChunk

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers import sdk_objects

CHUNKS: list[dict[str, Any]] = [
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"},
                  "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "system_fingerprint": None, "provider_own": {"x": 1},
     "choices": [{"index": 0, "delta": {"tool_calls": [
         {"index": 0, "id": "t1", "type": "function",
          "function": {"name": "read_file", "arguments": "{\"pa"}}]},
         "logprobs": None, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [],
     "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5,
               "prompt_tokens_details": {"cached_tokens": 1}}},
]
REJECTED: list[dict[str, Any]] = [
    {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",  # not a chunk's
     "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "model": "m",  # no `created`
     "choices": [{"index": None, "delta": {"content": "x"}, "finish_reason": "stop"}]},
]


@pytest.fixture
def built_the_sdks_way() -> list[type]:
    """The types the SDK's own constructor built, under the validator."""
    return []


@pytest.fixture
def validated(monkeypatch: pytest.MonkeyPatch, built_the_sdks_way: list[type]) -> Any:
    """The SDK's client with the validator first (and as the SDK ships it after the test)."""
    def sdks_own(*, value: object, type_: Any, metadata: Any = None) -> Any:
        built_the_sdks_way.append(type_)
        return sdk_models.construct_type(value=value, type_=type_, metadata=metadata)

    monkeypatch.setattr(sdk_client, "construct_type", sdks_own)
    monkeypatch.delenv(sdk_objects.SWITCH, raising=False)
    assert sdk_objects.validate_first()
    return sdk_client.construct_type


def _same(built: Any, expected: Any) -> None:
    assert type(built) is type(expected)
    assert built.model_dump() == expected.model_dump()
    # what was set, as LiteLLM reads it (pydantic also counts an extra key among the fields set)
    assert built.model_dump(exclude_unset=True) == expected.model_dump(exclude_unset=True)
    assert built.to_dict() == expected.to_dict()
    assert built.model_extra == expected.model_extra


@pytest.mark.parametrize("data", CHUNKS, ids=["text", "tool call, extra keys", "usage"])
def test_a_chunk_is_the_object_the_sdk_builds(validated: Any, built_the_sdks_way: list[type],
                                              data: dict[str, Any]) -> None:
    built = validated(type_=ChatCompletionChunk, value=data)
    _same(built, sdk_models.construct_type(type_=ChatCompletionChunk, value=data))
    assert built_the_sdks_way == []
    for choice, raw in zip(built.choices, data["choices"], strict=True):
        assert choice.delta.model_fields_set == set(raw["delta"])


@pytest.mark.parametrize("data", REJECTED, ids=["another object", "fields missing or null"])
def test_data_the_models_reject_is_built_the_sdks_way(
        validated: Any, built_the_sdks_way: list[type], data: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ChatCompletionChunk.model_validate(data)
    _same(validated(type_=ChatCompletionChunk, value=data),
          sdk_models.construct_type(type_=ChatCompletionChunk, value=data))
    assert built_the_sdks_way == [ChatCompletionChunk]


def test_once_applied_it_is_not_wrapped_again_and_the_switch_leaves_the_sdk_alone(
        validated: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not sdk_objects.validate_first()  # already
    monkeypatch.setattr(sdk_client, "construct_type", sdk_models.construct_type)
    monkeypatch.setenv(sdk_objects.SWITCH, "1")
    assert not sdk_objects.validate_first()
    assert sdk_client.construct_type is sdk_models.construct_type


async def test_a_stream_and_a_whole_answer_through_litellm_read_the_same(
        validated: Any, built_the_sdks_way: list[type], fake_model: FakeModelServer) -> None:
    from valarmind_tui.providers.litellm_call import load_litellm

    litellm = load_litellm()
    call = {"name": "read_file", "arguments": {"path": "a.py"}}
    fake_model.script(ScriptedTurn(text="Hello there, friend.", tool_calls=[call]),
                      ScriptedTurn(text="whole"))
    common = {"model": "openai/fake-model", "api_base": fake_model.openai_base,
              "api_key": "sk-test", "messages": [{"role": "user", "content": "hi"}]}
    text, arguments = "", ""
    async for chunk in await litellm.acompletion(stream=True, **common):
        delta = chunk.choices[0].delta if chunk.choices else None
        text += (delta.content or "") if delta else ""
        for tool_call in (delta.tool_calls or []) if delta else []:
            arguments += tool_call.function.arguments or ""
    assert text == "Hello there, friend." and arguments == '{"path": "a.py"}'
    whole = await litellm.acompletion(stream=False, **common)
    assert whole.choices[0].message.content == "whole"
    assert built_the_sdks_way == []  # every chunk, and the whole answer, by the validator
