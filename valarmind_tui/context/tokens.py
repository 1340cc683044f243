"""Token counting that works offline: tiktoken's cl100k_base through its own API, from the
encoding files LiteLLM ships (`valarmind_tui.core.tokenizer`), else about 4 characters per token.
"""

from __future__ import annotations

import json
from typing import Any

from valarmind_tui.core.tokenizer import count_tokens, estimate_tokens

__all__ = ["count_json_tokens", "count_message_tokens", "count_tokens", "estimate_tokens"]


IMAGE_TOKENS = 1_600
"""What one image costs at most once downscaled (Anthropic: width × height / 750 for 1568 px;
OpenAI's high detail is about as much); its base64 text is never counted."""


def count_message_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of chat messages: content, tool calls and a small per-message overhead."""
    total = 0
    for message in messages:
        total += 4
        content = message.get("content")
        if isinstance(content, str):
            total += count_tokens(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    total += count_tokens(part["text"])
                elif isinstance(part, dict) and part.get("type") == "image_url":
                    total += IMAGE_TOKENS
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            total += count_tokens(str(function.get("name", "")))
            total += count_tokens(str(function.get("arguments", "")))
    return total


def count_json_tokens(value: Any) -> int:
    return count_tokens(json.dumps(value, separators=(",", ":")))
