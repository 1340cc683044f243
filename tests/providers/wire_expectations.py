"""What a recorded provider-wire case says, read straight from the payload (independent of
valarmind's normalize code): text, reasoning, tool calls, usage, or the error message."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# LiteLLM provider prefix a user would configure for each recorded provider (all pointed at the
# fake server with api_base). Ollama and Gemini fixtures come from their OpenAI-compatible /v1.
PREFIX = {"openai": "openai", "azure": "openai", "deepseek": "deepseek", "groq": "groq",
          "mistral": "mistral", "xai": "xai", "alibaba": "dashscope", "openrouter": "openrouter",
          "ollama": "openai", "zai": "zai", "kimi": "moonshot", "gemini-openai-compat": "openai",
          "anthropic": "anthropic"}


@dataclass
class ExpectedCall:
    id: str  # "" when the payload has none
    name: str
    arguments: str


@dataclass
class Expected:
    text: str = ""
    reasoning: str = ""
    calls: list[ExpectedCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Of the prompt, read from the provider's cache (what the ledger prices at the cache's
    rate)."""
    reasoning_tokens: int = 0
    thinking_blocks: int = 0
    signatures: list[str] = field(default_factory=list)
    error: str | None = None
    status: int | None = None


def _error_message(body: Any) -> str:
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        return str(error.get("message"))
    return str(error)


def _content(exp: Expected, content: Any) -> None:
    if isinstance(content, str):
        exp.text += content
    elif isinstance(content, list):
        for part in content:
            if part.get("type") == "text":
                exp.text += part.get("text", "")
            elif part.get("type") == "thinking":
                inner = part.get("thinking")
                exp.reasoning += "".join(p.get("text", "") for p in inner) if isinstance(
                    inner, list) else (inner or "")


def _reasoning(message: dict[str, Any]) -> str:
    for key in ("reasoning_content", "reasoning"):
        if message.get(key):
            return str(message[key])
    details = message.get("reasoning_details") or []
    return "".join(d.get("text", "") for d in details)


def _openai_calls(exp: Expected, deltas: list[dict[str, Any]]) -> None:
    slots: dict[int, ExpectedCall] = {}
    for call in deltas:
        index = call.get("index")
        if index is None:  # Mistral-style: same id continues a call, else a new call
            known = [i for i, s in slots.items() if call.get("id") and s.id == call["id"]]
            index = known[0] if known else len(slots)
        slot = slots.setdefault(index, ExpectedCall("", "", ""))
        slot.id = slot.id or call.get("id") or ""
        function = call.get("function") or {}
        slot.name = slot.name or function.get("name") or ""
        slot.arguments += function.get("arguments") or ""
    exp.calls = [slots[i] for i in sorted(slots)]


def _openai_usage(exp: Expected, usage: dict[str, Any] | None) -> None:
    if usage:
        exp.prompt_tokens = usage.get("prompt_tokens", 0)
        exp.completion_tokens = usage.get("completion_tokens", 0)
        # xAI counts reasoning apart from completion_tokens (its total shows it); it is billed
        # as output, so the turn's completion tokens include it.
        details = usage.get("completion_tokens_details") or {}
        reasoning = details.get("reasoning_tokens") or 0
        exp.reasoning_tokens = reasoning
        exp.cached_tokens = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        if reasoning and usage.get("total_tokens") == (
                exp.prompt_tokens + exp.completion_tokens + reasoning):
            exp.completion_tokens += reasoning


def openai_stream(case: dict[str, Any]) -> Expected:
    exp = Expected()
    deltas: list[dict[str, Any]] = []
    for raw in case["sse_events"]:
        if raw.strip() == "[DONE]":
            continue
        chunk = json.loads(raw)
        if "error" in chunk:
            exp.error = _error_message(chunk)
            break
        _openai_usage(exp, chunk.get("usage"))
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            _content(exp, delta.get("content"))
            exp.reasoning += _reasoning(delta)
            deltas.extend(delta.get("tool_calls") or [])
            _openai_usage(exp, choice.get("usage"))
    _openai_calls(exp, deltas)
    return exp


def openai_json(case: dict[str, Any]) -> Expected:
    exp = Expected()
    body = case["body"]
    message = body["choices"][0]["message"]
    _content(exp, message.get("content"))
    exp.reasoning += _reasoning(message)
    calls = message.get("tool_calls") or []
    _openai_calls(exp, [{**c, "index": n} for n, c in enumerate(calls)])
    _openai_usage(exp, body.get("usage"))
    return exp


def _anthropic_usage(exp: Expected, usage: dict[str, Any] | None) -> None:
    if not usage:
        return
    if "input_tokens" in usage:
        exp.prompt_tokens = (usage["input_tokens"] + (usage.get("cache_read_input_tokens") or 0)
                             + (usage.get("cache_creation_input_tokens") or 0))
        exp.cached_tokens = usage.get("cache_read_input_tokens") or 0
    if "output_tokens" in usage:
        exp.completion_tokens = usage["output_tokens"]


def anthropic_stream(case: dict[str, Any]) -> Expected:
    exp = Expected()
    blocks: dict[int, dict[str, Any]] = {}
    for raw in case["sse_events"]:
        event = json.loads(raw)
        kind = event["type"]
        if kind == "message_start":
            _anthropic_usage(exp, event["message"].get("usage"))
        elif kind == "message_delta":
            _anthropic_usage(exp, event.get("usage"))
        elif kind == "content_block_start":
            blocks[event["index"]] = {**event["content_block"], "json": ""}
        elif kind == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            block["text"] = block.get("text", "") + delta.get("text", "")
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
            block["json"] += delta.get("partial_json", "")
        elif kind == "error":
            exp.error = _error_message(event)
    _anthropic_blocks(exp, [blocks[i] for i in sorted(blocks)], streamed=True)
    return exp


def _anthropic_blocks(exp: Expected, blocks: list[dict[str, Any]], streamed: bool) -> None:
    for block in blocks:
        if block["type"] == "text":
            exp.text += block.get("text", "")
        elif block["type"] in ("thinking", "redacted_thinking"):
            exp.reasoning += block.get("thinking", "")
            exp.thinking_blocks += 1
            if block.get("signature"):
                exp.signatures.append(block["signature"])
        elif block["type"] == "tool_use":
            args = block["json"] if streamed else json.dumps(block.get("input") or {})
            exp.calls.append(ExpectedCall(block.get("id", ""), block["name"], args))


def anthropic_json(case: dict[str, Any]) -> Expected:
    exp = Expected()
    _anthropic_blocks(exp, case["body"]["content"], streamed=False)
    _anthropic_usage(exp, case["body"].get("usage"))
    return exp


def expected(case: dict[str, Any]) -> Expected:
    """The normalized result a recorded case should produce."""
    if case["status"] >= 400:
        return Expected(error=_error_message(case["body"]), status=case["status"])
    anthropic = case["format"] == "anthropic-messages"
    if case["stream"]:
        return anthropic_stream(case) if anthropic else openai_stream(case)
    return anthropic_json(case) if anthropic else openai_json(case)


def parsed_arguments(raw: str) -> dict[str, Any]:
    return json.loads(raw) if raw.strip() else {}
