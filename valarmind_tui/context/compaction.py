"""History compaction: summarize older turns before the context window overflows.

The system message and the last turns are kept; the cut never separates an assistant message's
tool calls from their tool results. With a model the older turns become one summary message;
without one, old tool outputs are truncated in place.
"""

from __future__ import annotations

import json
from typing import Any

from valarmind_tui.context.tokens import count_message_tokens
from valarmind_tui.media.parts import message_text

DEFAULT_THRESHOLD = 0.85
KEEP_LAST_MESSAGES = 6
TRUNCATED_TOOL_CHARS = 400
SUMMARY_PROMPT = (
    "Summarize this conversation between a person and a coding agent so the agent can continue "
    "without it: the goal, decisions made, files read or changed (with paths), commands run and "
    "their outcome, open problems and next steps. Be factual and concise; keep exact names."
)
SUMMARY_HEADER = "[Summary of the earlier conversation]"
"""First line of the user message that replaces compacted turns."""


def split_point(messages: list[dict[str, Any]], keep_last: int = KEEP_LAST_MESSAGES) -> int:
    """Index where the kept tail starts: never on a tool result (it stays with its call)."""
    start = 1 if messages and messages[0].get("role") == "system" else 0
    cut = max(start, len(messages) - keep_last)
    while cut > start and messages[cut].get("role") == "tool":
        cut -= 1
    return cut


async def compact(messages: list[dict[str, Any]], provider: Any | None = None,
                  model: str | None = None) -> tuple[list[dict[str, Any]], str]:
    """(new messages, notice text). Returns the messages unchanged when there is nothing old."""
    cut = split_point(messages)
    head = 1 if messages and messages[0].get("role") == "system" else 0
    older = messages[head:cut]
    if not older:
        return list(messages), "Nothing to compact: the history is only recent turns."
    before = count_message_tokens(messages)
    if provider is None:
        new = messages[:head] + [_truncate_tool(m) for m in older] + messages[cut:]
        after = count_message_tokens(new)
        return new, (f"Compacted without a model: truncated old tool outputs in {len(older)} "
                     f"messages ({before} → {after} tokens).")
    summary = await _summarize(provider, model, older)
    note = {"role": "user", "content": f"{SUMMARY_HEADER}\n{summary}"}
    new = messages[:head] + [note] + messages[cut:]
    after = count_message_tokens(new)
    return new, (f"Compacted {len(older)} older messages into a summary "
                 f"({before} → {after} tokens).")


def _truncate_tool(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if message.get("role") != "tool" or not isinstance(content, str):
        return message
    if len(content) <= TRUNCATED_TOOL_CHARS:
        return message
    cut = len(content) - TRUNCATED_TOOL_CHARS
    return {**message, "content": content[:TRUNCATED_TOOL_CHARS] +
            f"\n[… {cut} characters of old tool output removed by compaction]"}


async def _summarize(provider: Any, model: str | None, older: list[dict[str, Any]]) -> str:
    from valarmind_tui.providers.base import ModelRequest, TurnComplete

    transcript = "\n".join(_line(m) for m in older)
    request = ModelRequest(messages=[
        {"role": "system", "content": SUMMARY_PROMPT},
        {"role": "user", "content": transcript[-200_000:]},
    ], model=model, max_tokens=2000)
    text = ""
    async for chunk in provider.stream(request):
        if isinstance(chunk, TurnComplete):
            text = chunk.turn.text
    return text.strip() or "(the model returned an empty summary)"


def _line(message: dict[str, Any]) -> str:
    role = message.get("role", "?")
    content = message.get("content") or ""
    if isinstance(content, list):  # text parts only: an image's base64 is no summary's matter
        content = message_text(content)
    elif not isinstance(content, str):
        content = json.dumps(content)
    calls = message.get("tool_calls") or []
    names = ", ".join(c.get("function", {}).get("name", "?") for c in calls)
    if role == "tool":
        content = content[:2000]
    return f"{role}: {content}" + (f" [calls: {names}]" if names else "")
