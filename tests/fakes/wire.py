"""Wire formats the fake model server emits, shaped like real OpenAI and Anthropic responses.

OpenAI streams: a role chunk, reasoning/text deltas, tool calls by `index` with id/type/name only
on the first piece and the arguments in fragments, a finish chunk, a usage chunk with
`choices: []` when `stream_options.include_usage`, then `data: [DONE]`.
Anthropic streams: message_start, ping, content_block_start/delta/stop (thinking with
signature_delta, text, tool_use with input_json_delta), message_delta, message_stop.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.model_server import ScriptedTurn

Event = tuple[str | None, str]
"""(SSE event name or None, data payload)."""

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error", 429: "rate_limit_error",
                529: "overloaded_error"}


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i:i + size] for i in range(0, len(text), size)]


def _arguments(call: dict[str, Any]) -> str:
    args = call.get("arguments", {})
    return args if isinstance(args, str) else json.dumps(args)


def _usage(turn: ScriptedTurn) -> tuple[int, int]:
    usage = turn.usage or {}
    prompt = int(usage.get("prompt_tokens", 12))
    completion = int(usage.get("completion_tokens", 5 + len(turn.text) // 4))
    return prompt, completion


def usage_reported(turn: ScriptedTurn) -> dict[str, int]:
    """The usage the turn reports: prompt and completion tokens, and of them the cached prompt
    tokens and the reasoning tokens (`usage` keys `cached_tokens`, `reasoning_tokens`)."""
    prompt, completion = _usage(turn)
    usage = turn.usage or {}
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "cached_tokens": int(usage.get("cached_tokens", 0)),
            "reasoning_tokens": int(usage.get("reasoning_tokens", 0))}


def openai_usage(turn: ScriptedTurn) -> dict[str, Any]:
    """OpenAI's shape: cached and reasoning tokens in the details, inside the two counts."""
    told = usage_reported(turn)
    prompt, completion = told["prompt_tokens"], told["completion_tokens"]
    body: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion}
    if told["cached_tokens"]:
        body["prompt_tokens_details"] = {"cached_tokens": told["cached_tokens"]}
    if told["reasoning_tokens"]:
        body["completion_tokens_details"] = {"reasoning_tokens": told["reasoning_tokens"]}
    return body


def anthropic_usage(turn: ScriptedTurn, output_tokens: int | None = None) -> dict[str, Any]:
    """Anthropic's shape: cache reads apart from `input_tokens` (which leaves them out)."""
    told = usage_reported(turn)
    body: dict[str, Any] = {"input_tokens": told["prompt_tokens"] - told["cached_tokens"],
                            "output_tokens": told["completion_tokens"]
                            if output_tokens is None else output_tokens}
    if told["cached_tokens"]:
        body["cache_read_input_tokens"] = told["cached_tokens"]
    return body


def exhausted_error(anthropic: bool, number: int) -> dict[str, Any]:
    message = (f"fake model server: the script ran out (request #{number} has no scripted "
               "turn left)")
    if anthropic:
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    return {"error": {"message": message, "type": "script_exhausted", "code": None}}


def error_body(turn: ScriptedTurn, anthropic: bool) -> Any:
    if isinstance(turn.error, dict):
        return turn.error
    kind = _ERROR_TYPES.get(turn.status, "api_error" if turn.status >= 500 else "error")
    message = turn.error or f"fake model server: scripted error {turn.status}"
    if anthropic:
        return {"type": "error", "error": {"type": kind, "message": message},
                "request_id": "req_fake"}
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


# --- OpenAI chat completions ---------------------------------------------------------------

def openai_completion(turn: ScriptedTurn, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = []
        for n, call in enumerate(turn.tool_calls):
            entry: dict[str, Any] = {"type": "function",
                                     "function": {"name": call["name"],
                                                  "arguments": _arguments(call)}}
            call_id = call.get("id", f"call_fake_{n}")
            if call_id is not None:
                entry["id"] = call_id
            message["tool_calls"].append(entry)
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
        "usage": openai_usage(turn),
    }


def responses_body(turn: ScriptedTurn, model: str) -> dict[str, Any]:
    """A finished Responses API answer (`POST /responses`, not streamed): the turn's text."""
    prompt, completion = _usage(turn)
    return {
        "id": "resp_fake", "object": "response", "created_at": int(time.time()),
        "status": "completed", "model": model,
        "output": [{"type": "message", "id": "msg_fake", "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}]}],
        "usage": {"input_tokens": prompt, "output_tokens": completion,
                  "total_tokens": prompt + completion},
    }


def gemini_body(turn: ScriptedTurn) -> dict[str, Any]:
    """A Gemini generateContent answer (not streamed): the turn's text."""
    prompt, completion = _usage(turn)
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": turn.text}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": completion,
                          "totalTokenCount": prompt + completion},
        "modelVersion": "fake-gemini",
    }


def openai_events(turn: ScriptedTurn, model: str, include_usage: bool) -> Iterator[Event]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        body = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created,
                "model": model, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                             "finish_reason": finish}]}
        return None, json.dumps(body)

    yield chunk({"role": "assistant", "content": ""})
    for piece in _pieces(turn.reasoning, turn.chunk_size):
        yield chunk({"reasoning_content": piece})
    for piece in _pieces(turn.text, turn.chunk_size):
        yield chunk({"content": piece})
    if turn.stream_error is not None:
        yield None, json.dumps({"error": {"message": turn.stream_error, "type": "server_error",
                                          "code": "stream_error"}})
        return
    for n, call in enumerate(turn.tool_calls):
        head: dict[str, Any] = {"index": n, "type": "function",
                                "function": {"name": call["name"], "arguments": ""}}
        call_id = call.get("id", f"call_fake_{n}")
        if call_id is not None:
            head = {"index": n, "id": call_id, **{k: v for k, v in head.items() if k != "index"}}
        yield chunk({"tool_calls": [head]})
        for piece in _pieces(_arguments(call), turn.chunk_size):
            yield chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]})
    yield chunk({}, "tool_calls" if turn.tool_calls else "stop")
    if include_usage:
        body = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created,
                "model": model, "choices": [],
                "usage": openai_usage(turn)}
        yield None, json.dumps(body)
    yield None, "[DONE]"


# --- Anthropic messages --------------------------------------------------------------------

def _anthropic_blocks(turn: ScriptedTurn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.reasoning:
        blocks.append({"type": "thinking", "thinking": turn.reasoning,
                       "signature": turn.signature})
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    for n, call in enumerate(turn.tool_calls):
        args = call.get("arguments", {})
        block: dict[str, Any] = {"type": "tool_use", "name": call["name"],
                                 "input": args if isinstance(args, dict) else {}}
        call_id = call.get("id", f"toolu_fake_{n}")
        if call_id is not None:
            block = {"type": "tool_use", "id": call_id,
                     **{k: v for k, v in block.items() if k != "type"}}
        blocks.append(block)
    return blocks


def anthropic_message(turn: ScriptedTurn, model: str) -> dict[str, Any]:
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": _anthropic_blocks(turn),
            "stop_reason": "tool_use" if turn.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": anthropic_usage(turn)}


def anthropic_events(turn: ScriptedTurn, model: str) -> Iterator[Event]:
    completion = _usage(turn)[1]

    def event(name: str, **data: Any) -> Event:
        return name, json.dumps({"type": name, **data})

    yield event("message_start", message={
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": anthropic_usage(turn, output_tokens=1)})
    yield event("ping")
    index = 0
    if turn.reasoning:
        yield event("content_block_start", index=index,
                    content_block={"type": "thinking", "thinking": "", "signature": ""})
        for piece in _pieces(turn.reasoning, turn.chunk_size):
            yield event("content_block_delta", index=index,
                        delta={"type": "thinking_delta", "thinking": piece})
        yield event("content_block_delta", index=index,
                    delta={"type": "signature_delta", "signature": turn.signature})
        yield event("content_block_stop", index=index)
        index += 1
    if turn.text:
        yield event("content_block_start", index=index,
                    content_block={"type": "text", "text": ""})
        for piece in _pieces(turn.text, turn.chunk_size):
            yield event("content_block_delta", index=index,
                        delta={"type": "text_delta", "text": piece})
        yield event("content_block_stop", index=index)
        index += 1
    if turn.stream_error is not None:
        yield event("error", error={"type": "overloaded_error", "message": turn.stream_error})
        return
    for n, call in enumerate(turn.tool_calls):
        block: dict[str, Any] = {"type": "tool_use", "name": call["name"], "input": {}}
        call_id = call.get("id", f"toolu_fake_{n}")
        if call_id is not None:
            block["id"] = call_id
        yield event("content_block_start", index=index, content_block=block)
        for piece in _pieces(_arguments(call), turn.chunk_size):
            yield event("content_block_delta", index=index,
                        delta={"type": "input_json_delta", "partial_json": piece})
        yield event("content_block_stop", index=index)
        index += 1
    yield event("message_delta",
                delta={"stop_reason": "tool_use" if turn.tool_calls else "end_turn",
                       "stop_sequence": None},
                usage={"output_tokens": completion})
    yield event("message_stop")


def is_finish(event: Event) -> bool:
    """Whether a streamed event carries the finish (OpenAI's finish_reason, Anthropic's
    message_delta with its stop_reason)."""
    name, data = event
    if name is not None:
        return name == "message_delta"
    try:
        body = json.loads(data)
    except ValueError:
        return False
    return any(choice.get("finish_reason") for choice in body.get("choices") or [])
