"""A stream's end without LiteLLM rebuilding the whole answer (issue #36).

When a stream ends, LiteLLM builds the complete response from every chunk it kept
(`stream_chunk_builder`: the text joined, the usage summed, pricing fields looked up chunk by
chunk) for its own logging and cache, and hands out the provider's usage chunk only after. Over
the ~2,000 chunks of a long answer that took ~140 ms of the model process's CPU, a third of the
request's, between the answer's last words and its usage (which ends the turn). Nothing here
reads that response: the answer is read from the stream as it comes, and the usage is the
provider's. So the builder is given the chunks its result here depends on: the first (the
response's id and model), each carrying usage or a finish reason, and the last. Any chunk it
cannot read that way is kept, and a failure of the selection gives it every chunk.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any


def build_from_ends(litellm: Any) -> None:
    """Give LiteLLM's stream-end builder only the chunks its usage depends on (once)."""
    builder = getattr(litellm, "stream_chunk_builder", None)
    if builder is None or getattr(builder, "builds_from_ends", False):
        return
    litellm.stream_chunk_builder = _from_ends(builder)


def _from_ends(builder: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(builder)
    def build(chunks: Any, *args: Any, **kwargs: Any) -> Any:
        return builder(needed_chunks(chunks), *args, **kwargs)

    build.builds_from_ends = True  # type: ignore[attr-defined]  # why: marks the wrapper
    return build


def needed_chunks(chunks: Any) -> Any:
    """The first chunk, those with usage or a finish reason, and the last; `chunks` itself
    when it is not a list or cannot be read."""
    if not isinstance(chunks, list) or len(chunks) <= 2:
        return chunks
    try:
        last = len(chunks) - 1
        return [chunk for index, chunk in enumerate(chunks)
                if index in (0, last) or _carries_usage_or_finish(chunk)]
    except Exception:  # noqa: BLE001 - LiteLLM's own chunk types changed: build from them all
        return chunks


def _carries_usage_or_finish(chunk: Any) -> bool:
    if _field(chunk, "usage"):
        return True
    hidden = getattr(chunk, "_hidden_params", None)
    if hidden is None and isinstance(chunk, dict):
        hidden = chunk.get("_hidden_params")
    if isinstance(hidden, dict) and hidden.get("usage"):
        return True
    choices = _field(chunk, "choices")
    if not isinstance(choices, Sequence):
        return True  # not what a chat chunk looks like: keep it
    return any(_field(choice, "finish_reason") for choice in choices)


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)
