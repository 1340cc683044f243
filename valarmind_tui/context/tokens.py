"""Token counting that works offline.

tiktoken's cl100k_base is used when tiktoken is installed and the encoding file is already on
disk (LiteLLM bundles it): it is loaded from that file directly, never downloaded. Otherwise, and
for speed where an estimate is enough, about 4 characters per token.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


def estimate_tokens(text: str) -> int:
    """About 4 characters per token: free, and close enough for budgets."""
    return (len(text) + 3) // 4


def count_tokens(text: str) -> int:
    """cl100k_base tokens when available offline, else the estimate."""
    encoding = _encoding()
    if encoding is None:
        return estimate_tokens(text)
    return len(encoding.encode(text, disallowed_special=()))


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


@cache
def _encoding() -> Any | None:
    if importlib.util.find_spec("tiktoken") is None:
        return None
    path = _bundled_cl100k()
    if path is None:
        return None
    try:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe

        ranks = load_tiktoken_bpe(str(path))
        return tiktoken.Encoding(
            name="cl100k_base", pat_str=_CL100K_PATTERN, mergeable_ranks=ranks,
            special_tokens={"<|endoftext|>": 100257, "<|fim_prefix|>": 100258,
                            "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
                            "<|endofprompt|>": 100276},
        )
    except Exception:  # a corrupt or unexpected file: fall back to the estimate
        return None


def _bundled_cl100k() -> Path | None:
    """LiteLLM's bundled copy of cl100k_base (the file named by the sha1 of its URL)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(next(iter(spec.submodule_search_locations)))
    candidate = directory / "litellm_core_utils" / "tokenizers" / (
        "9b5ad71b2ce5302211f9c61530b329a4922fc6a4")
    return candidate if candidate.is_file() else None
