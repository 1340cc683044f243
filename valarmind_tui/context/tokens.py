"""Token counting that works offline: tiktoken's cl100k_base through its own API, from the
encoding files LiteLLM ships (`valarmind_tui.core.tokenizer`), else about 4 characters per token.
"""

from __future__ import annotations

import json
from typing import Any

from valarmind_tui.core.tokenizer import count_tokens, estimate_tokens

__all__ = ["count_json_tokens", "count_message_tokens", "count_tokens", "estimate_tokens"]


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
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            total += count_tokens(str(function.get("name", "")))
            total += count_tokens(str(function.get("arguments", "")))
    return total


def count_json_tokens(value: Any) -> int:
    return count_tokens(json.dumps(value, separators=(",", ":")))
