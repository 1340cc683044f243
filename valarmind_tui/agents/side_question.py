"""`/btw QUESTION`: a side question answered from the conversation as it stands, even while a
prompt runs, without touching it.

One model call, no tools: the conversation so far (the running turn's steps included) with its
tool calls and results written out as text, so no provider asks for a tool's answer, then the
question. Nothing of the exchange joins the history or the store.
"""

from __future__ import annotations

import json
from typing import Any

from valarmind_tui.core.errors import ProviderError
from valarmind_tui.providers.base import ModelRequest, Provider, TurnComplete, Usage
from valarmind_tui.tools.common import cap_middle

SIDE_QUESTION_FRAME = (
    "A side question about this conversation, asked while your work goes on. Answer it "
    "briefly from what the conversation already shows; you cannot use tools for it, and your "
    "task is unchanged.\n\nQuestion: ")
MAX_RESULT_CHARS = 4_000
"""A tool result kept for the side question (its middle cut): enough to answer about it."""


async def answer_side_question(provider: Provider, model: str | None,
                               conversation: list[dict[str, Any]], question: str
                               ) -> tuple[str, Usage]:
    """The model's answer to `question` given `conversation`, and what it cost."""
    messages = [*as_plain_text(conversation),
                {"role": "user", "content": SIDE_QUESTION_FRAME + question}]
    turn = None
    async for chunk in provider.stream(ModelRequest(messages=_merged(messages), model=model)):
        if isinstance(chunk, TurnComplete):
            turn = chunk.turn
    if turn is None:
        raise ProviderError("the model's stream ended without a complete response")
    return turn.text.strip() or "(the model gave no answer)", turn.usage


def as_plain_text(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with tool calls and results as text (a call left unanswered by a
    running step is no longer a call waiting for its result)."""
    names: dict[str, str] = {}
    plain: list[dict[str, Any]] = []
    for message in conversation:
        role = message.get("role")
        if role == "tool":
            name = names.get(str(message.get("tool_call_id")), "a tool")
            output = cap_middle(_text(message.get("content")), MAX_RESULT_CHARS)
            plain.append({"role": "user", "content": f"[result of {name}]\n{output}"})
            continue
        if role == "assistant":
            parts = [_text(message.get("content"))]
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                names[str(call.get("id"))] = str(function.get("name", "a tool"))
                parts.append(f"[called {function.get('name')} with {function.get('arguments')}]")
            plain.append({"role": "assistant", "content": "\n".join(p for p in parts if p)})
            continue
        if role in ("system", "user"):
            plain.append({"role": role, "content": message.get("content")})
    return plain


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) if isinstance(part, dict) else str(part)
                         for part in content)
    return "" if content is None else json.dumps(content)


def _merged(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive messages of one role joined (some providers require alternation)."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"] != "system":
            before = _text(merged[-1]["content"])
            merged[-1] = {"role": message["role"],
                          "content": f"{before}\n\n{_text(message['content'])}".strip()}
        else:
            merged.append(dict(message))
    return [m for m in merged if m["role"] == "system" or _text(m["content"]).strip()]
