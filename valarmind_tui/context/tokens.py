"""Token counting that works offline: tiktoken's cl100k_base through its own API, from the
encoding files LiteLLM ships (`valarmind_tui.core.tokenizer`), else about 4 characters per token.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from valarmind_tui.core.tokenizer import count_tokens, estimate_tokens, most_tokens

__all__ = ["count_json_tokens", "count_message_tokens", "count_tokens", "estimate_tokens",
           "message_chars", "most_message_tokens", "most_tokens"]


IMAGE_TOKENS = 1_600
"""What one image costs at most once downscaled (Anthropic: width × height / 750 for 1568 px;
OpenAI's high detail is about as much); its base64 text is never counted."""

MEMO_CHARS = 4_000_000
"""Characters of message text whose counts are remembered (the oldest forgotten first)."""
_MEMO_MIN_CHARS = 256
"""Shorter texts are counted again: cheaper than remembering them."""


class _CountMemo:
    """Token counts of long texts already counted. A conversation is measured again before
    every prompt (should it be compacted?), and after 30 prompts of ~2,000 tokens counting it
    anew took ~15 ms of the event loop per prompt; its messages are the same strings each
    time, so only the new ones are counted."""

    def __init__(self, max_chars: int = MEMO_CHARS) -> None:
        self._counts: dict[str, int] = {}
        self._chars = 0
        self._max_chars = max_chars
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        if len(text) < _MEMO_MIN_CHARS:
            return count_tokens(text)
        with self._lock:
            known = self._counts.get(text)
        if known is not None:
            return known
        tokens = count_tokens(text)
        with self._lock:
            if text not in self._counts:
                self._counts[text] = tokens
                self._chars += len(text)
            while self._chars > self._max_chars and self._counts:
                oldest = next(iter(self._counts))
                self._chars -= len(oldest)
                del self._counts[oldest]
        return tokens


_memo = _CountMemo()


def count_message_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of chat messages: content, tool calls and a small per-message overhead."""
    return _message_tokens(messages, _memo.count, count_tokens)


def most_message_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """At least `count_message_tokens(messages)`, without loading a tokenizer (`most_tokens`)."""
    return _message_tokens(messages, most_tokens, most_tokens)


def message_chars(messages: Sequence[dict[str, Any]]) -> int:
    """Characters of the messages' text and tool calls, an image as IMAGE_TOKENS."""
    return _message_tokens(messages, len, len, overhead=0)


def _message_tokens(messages: Sequence[dict[str, Any]], count_text: Callable[[str], int],
                    count: Callable[[str], int], overhead: int = 4) -> int:
    total = 0
    for message in messages:
        total += overhead
        content = message.get("content")
        if isinstance(content, str):
            total += count_text(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    total += count_text(part["text"])
                elif isinstance(part, dict) and part.get("type") == "image_url":
                    total += IMAGE_TOKENS
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            total += count(str(function.get("name", "")))
            total += count(str(function.get("arguments", "")))
    return total


def count_json_tokens(value: Any) -> int:
    return count_tokens(json.dumps(value, separators=(",", ":")))
