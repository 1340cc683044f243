"""The OpenAI SDK's response objects built by pydantic's validator (issue #36: the CPU of a
stream, and the lag of its last words).

LiteLLM reads every OpenAI-compatible stream through the OpenAI SDK, which turns each chunk
into its pydantic models with `construct_type` (openai/_models.py): a walk of the models' fields
in Python that checks nothing, 110 µs for a chat chunk, a third of the model process's CPU per
chunk. pydantic-core's validator builds the same object (fields, the fields set, the extra
keys the SDK's models allow) in 4 µs. So the SDK's client builds with the validator first; data
its models do not accept (a provider's own shape: a missing field, an `object` the SDK does
not name) is built the SDK's way, as before.

Fails safe: applied only where the SDK binds `construct_type` in `openai._base_client` as this
module expects; anything else leaves the SDK as it is. `VALARMIND_IMPORT_ALL=1` (the switch of
providers/import_less.py, "everything as the libraries ship it") turns it off.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

import pydantic

from valarmind_tui.providers.import_less import SWITCH

SAMPLE_CHUNK = {"id": "warm", "object": "chat.completion.chunk", "created": 0, "model": "warm",
                "choices": [{"index": 0, "delta": {"content": "warm"}, "finish_reason": None}]}
"""A chat chunk: validating it builds the validator (10 ms, once) before the first answer."""


def validate_first() -> bool:
    """Make the SDK's client build its response objects with the validator first; False when
    the SDK is not there as expected, or the switch is on."""
    if os.environ.get(SWITCH) == "1":
        return False
    client = sys.modules.get("openai._base_client")
    original = getattr(client, "construct_type", None)
    if client is None or original is None or getattr(original, "validated_first", False):
        return False
    if not {"type_", "value"} <= set(inspect.signature(original).parameters):
        return False

    def construct_type(*, value: object, type_: Any, **more: Any) -> Any:
        if (isinstance(value, dict) and not any(more.values()) and inspect.isclass(type_)
                and issubclass(type_, pydantic.BaseModel)):
            try:
                return type_.model_validate(value)
            except pydantic.ValidationError:
                pass
        return original(value=value, type_=type_, **more)

    construct_type.validated_first = True  # type: ignore[attr-defined]  # why: a marker
    client.construct_type = construct_type  # type: ignore[attr-defined]  # why: the SDK's name
    return True


def build_chunk_validator() -> None:
    """Build the chat chunk's validator now (a warm-up), not on the first answer's first chunk."""
    from openai.types.chat import ChatCompletionChunk

    ChatCompletionChunk.model_validate(SAMPLE_CHUNK)
