"""Turn LiteLLM stream deltas (or one non-streamed message) into one AssistantTurn.

Tool calls are assembled by `index` from the raw deltas here, not with
`litellm.stream_chunk_builder`, which silently drops calls that arrive without an id. Reasoning
comes from whichever field the provider used (`reasoning_content`, `reasoning`, OpenRouter's
`reasoning_details`); Anthropic thinking blocks are kept with their signatures for replay.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from valarmind_tui.providers.base import (
    AssistantTurn,
    ReasoningPiece,
    TextPiece,
    ToolCall,
    Usage,
)
from valarmind_tui.providers.failures import MalformedResponse


def _get(obj: Any, name: str) -> Any:
    """Attribute or key `name` of a pydantic object, a dict, or None."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "provider_specific_fields", None)
        if isinstance(extra, dict):
            value = extra.get(name)
    return value


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return dict(obj)
    if hasattr(obj, "model_dump"):
        return dict(obj.model_dump(exclude_none=True))
    return dict(vars(obj))


def reasoning_of(delta: Any) -> str:
    """The reasoning text a delta or message carries, whatever field the provider used."""
    for name in ("reasoning_content", "reasoning"):
        value = _get(delta, name)
        if isinstance(value, str) and value:
            return value
    details = _get(delta, "reasoning_details")
    if isinstance(details, list):
        texts = [_get(d, "text") or _get(d, "summary") or "" for d in details]
        return "".join(t for t in texts if isinstance(t, str))
    return ""


def text_of(content: Any) -> tuple[str, str]:
    """(text, reasoning) of a content field: a string, or a list of text/thinking parts. A
    number is its text (a model answering "42" sent as JSON 42 still said it); anything else
    that is not text is MalformedResponse, never dropped without a word."""
    if content is None:
        return "", ""
    if isinstance(content, str):
        return content, ""
    if isinstance(content, int | float):
        return str(content).lower() if isinstance(content, bool) else str(content), ""
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        raise MalformedResponse(f"the message content is {type(content).__name__}, not text")
    text: list[str] = []
    reasoning: list[str] = []
    for part in content:
        kind = _get(part, "type")
        if kind == "text":
            text.append(_get(part, "text") or "")
        elif kind == "thinking":
            inner = _get(part, "thinking")
            if isinstance(inner, list):
                reasoning.extend(_get(p, "text") or "" for p in inner)
            elif isinstance(inner, str):
                reasoning.append(inner)
    return "".join(text), "".join(reasoning)


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """Parsed arguments and, when they do not parse into an object, why not."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        snippet = raw if len(raw) <= 200 else raw[:200] + "..."
        return {}, (f"arguments are not valid JSON ({exc.msg} at line {exc.lineno} column "
                    f"{exc.colno}): {snippet}")
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}: {raw[:200]}"
    return value, None


@dataclass
class _CallSlot:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class TurnAccumulator:
    """Collects one response's pieces; `finish()` returns the normalized AssistantTurn."""

    new_id: Callable[[], str] = field(default_factory=lambda: _counter_ids())
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    thinking_blocks: list[dict[str, Any]] = field(default_factory=list)
    calls: dict[int, _CallSlot] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    _block_open: bool = False

    def feed_delta(self, delta: Any) -> Iterator[TextPiece | ReasoningPiece]:
        """Absorb one streamed delta; yield the text and reasoning it carries."""
        text, part_reasoning = text_of(_get(delta, "content"))
        reasoning = reasoning_of(delta) or part_reasoning
        for block in _get(delta, "thinking_blocks") or []:
            self._add_thinking(_as_dict(block))
        for call in tool_calls_of(delta):
            self._add_call(call)
        if reasoning:
            self.reasoning.append(reasoning)
            yield ReasoningPiece(reasoning)
        if text:
            self.text.append(text)
            yield TextPiece(text)

    def feed_message(self, message: Any) -> Iterator[TextPiece | ReasoningPiece]:
        """Absorb a whole non-streamed message (tool calls in order, no index)."""
        calls = tool_calls_of(message)
        for position, call in enumerate(calls):
            self._add_call(call, position=position)
        text, part_reasoning = text_of(_get(message, "content"))
        reasoning = reasoning_of(message) or part_reasoning
        for block in _get(message, "thinking_blocks") or []:
            self.thinking_blocks.append(_as_dict(block))
        if reasoning:
            self.reasoning.append(reasoning)
            yield ReasoningPiece(reasoning)
        if text:
            self.text.append(text)
            yield TextPiece(text)

    def _add_thinking(self, block: dict[str, Any]) -> None:
        # LiteLLM sends Anthropic thinking as one block per delta; the signature arrives alone
        # at the end of its block. Merge the pieces back into whole blocks.
        if block.get("type") != "thinking":
            self.thinking_blocks.append(block)
            self._block_open = False
            return
        piece, signature = block.get("thinking") or "", block.get("signature")
        if not self._block_open:
            self.thinking_blocks.append({"type": "thinking", "thinking": ""})
            self._block_open = True
        current = self.thinking_blocks[-1]
        current["thinking"] += piece
        if signature:
            current["signature"] = signature
            if not piece:
                self._block_open = False

    def _add_call(self, call: Any, position: int | None = None) -> None:
        index = _get(call, "index")
        call_id = _get(call, "id") or ""
        if position is not None:
            index = position
        elif not isinstance(index, int):
            # Mistral-style calls without index: the same id continues a call, else a new one.
            match = [i for i, s in self.calls.items() if call_id and s.id == call_id]
            index = match[0] if match else len(self.calls)
        slot = self.calls.setdefault(index, _CallSlot())
        function = _get(call, "function")
        if call_id and not slot.id:
            slot.id = call_id
        name = _get(function, "name")
        if name and not slot.name:
            slot.name = name
        arguments = _get(function, "arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        if arguments:
            slot.arguments.append(arguments)

    def finish(self, taken: set[str] | frozenset[str] = frozenset()) -> AssistantTurn:
        """The turn; a call without an id, or with one used before (by an earlier call of
        this turn or one in `taken`, the history's), gets a fresh one: a provider rejects a
        history where two calls share an id, and a result would answer the wrong call."""
        calls = []
        used = set(taken)
        for _index, slot in sorted(self.calls.items()):
            raw = "".join(slot.arguments)
            arguments, error = parse_arguments(raw)
            call_id = slot.id
            while not call_id or call_id in used:
                call_id = self.new_id()
            used.add(call_id)
            calls.append(ToolCall(id=call_id, name=slot.name,
                                  arguments=arguments, raw_arguments=raw, parse_error=error))
        reasoning = "".join(self.reasoning)
        return AssistantTurn(
            text="".join(self.text), reasoning=reasoning, tool_calls=tuple(calls),
            usage=with_reasoning_estimate(self.usage, reasoning),
            finish_reason=self.finish_reason, thinking_blocks=tuple(self.thinking_blocks),
        )


CHARS_PER_TOKEN = 4
"""What a reasoning text is estimated at when its provider does not count it apart."""


def with_reasoning_estimate(usage: Usage, reasoning: str) -> Usage:
    """`usage` with its reasoning tokens estimated from the streamed reasoning text when the
    provider billed thinking inside the completion without counting it apart (Anthropic, some
    OpenAI-compatible servers): ~4 characters a token, never more than the completion. No
    tokenizer is loaded for it (the model process and a one-shot keep none)."""
    if usage.reasoning_tokens or not reasoning or usage.completion_tokens <= 0:
        return usage
    estimate = max(1, round(len(reasoning) / CHARS_PER_TOKEN))
    return replace(usage, reasoning_tokens=min(estimate, usage.completion_tokens))


def tool_calls_of(delta: Any) -> list[Any]:
    """The tool calls of a delta or message, as a list. A string (some servers send the list
    as JSON text) is parsed; a string was once iterated as one phantom call per character."""
    calls = _get(delta, "tool_calls")
    if not calls:
        return []
    if isinstance(calls, str):
        try:
            calls = json.loads(calls)
        except json.JSONDecodeError:
            raise MalformedResponse(f"tool_calls is text that is not JSON: {calls[:200]}"
                                    ) from None
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list | tuple) or not all(
            isinstance(c, dict) or hasattr(c, "function") for c in calls):
        raise MalformedResponse(f"tool_calls is not a list of calls: {str(calls)[:200]}")
    return list(calls)


def _counter_ids() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"call_{next(counter)}"


def usage_from(usage: Any) -> tuple[int, int] | None:
    """(prompt, completion) tokens of a usage object or dict; None when absent."""
    if usage is None:
        return None
    prompt = _get(usage, "prompt_tokens")
    completion = _get(usage, "completion_tokens")
    if prompt is None and completion is None:
        return None
    return int(prompt or 0), int(completion or 0)


def usage_details(usage: Any) -> tuple[int, int]:
    """(cached, reasoning) tokens of a usage object or dict: the prompt tokens read from the
    provider's cache and the completion tokens spent thinking; 0 when not reported. LiteLLM
    puts Anthropic's `cache_read_input_tokens` into `prompt_tokens_details.cached_tokens` too,
    and keeps it as an attribute of its own."""
    prompt_details = _get(usage, "prompt_tokens_details")
    cached = _get(prompt_details, "cached_tokens") or _get(usage, "cache_read_input_tokens")
    reasoning = _get(_get(usage, "completion_tokens_details"), "reasoning_tokens")
    return _count(cached), _count(reasoning)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0
