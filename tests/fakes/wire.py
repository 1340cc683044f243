"""Wire formats the fake model server emits, shaped like real OpenAI and Anthropic responses.

OpenAI streams: a role chunk, reasoning/text deltas, tool calls by `index` with id/type/name only
on the first piece and the arguments in fragments, a finish chunk, a usage chunk with
`choices: []` when `stream_options.include_usage`, then `data: [DONE]`.
Anthropic streams: message_start, ping, content_block_start/delta/stop (thinking with
signature_delta, text, tool_use with input_json_delta), message_delta, message_stop.
The Responses API streams named events with a `sequence_number`: response.created,
response.in_progress, then per output item (reasoning with its summary, the message, each
function_call) output_item.added, its deltas and dones, output_item.done, and last
response.completed carrying the whole response and its usage (no `[DONE]`).
Gemini streams `data:` chunks of GenerateContentResponse (`?alt=sse`): candidates whose parts are
thought text (`thought: true`), text, or whole functionCall parts; the last chunk has the
finishReason and the usageMetadata.
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


# --- OpenAI Responses API ----------------------------------------------------------------

def responses_usage(turn: ScriptedTurn) -> dict[str, Any]:
    """The Responses API's shape: cached and reasoning tokens in the details, inside the counts."""
    told = usage_reported(turn)
    prompt, completion = told["prompt_tokens"], told["completion_tokens"]
    return {"input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": told["cached_tokens"]},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": told["reasoning_tokens"]},
            "total_tokens": prompt + completion}


def _responses_items(turn: ScriptedTurn) -> list[dict[str, Any]]:
    """The finished output items: reasoning (its summary), the message, each function call."""
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        items.append({"type": "reasoning", "id": "rs_fake", "status": "completed",
                      "summary": [{"type": "summary_text", "text": turn.reasoning}]})
    if turn.text:
        items.append({"type": "message", "id": "msg_fake", "status": "completed",
                      "role": "assistant",
                      "content": [{"type": "output_text", "text": turn.text, "annotations": [],
                                   "logprobs": []}]})
    for n, call in enumerate(turn.tool_calls):
        items.append({"type": "function_call", "id": f"fc_fake_{n}",
                      "call_id": call.get("id") or f"call_fake_{n}", "name": call["name"],
                      "arguments": _arguments(call), "status": "completed"})
    return items


def responses_body(turn: ScriptedTurn, model: str, status: str = "completed",
                   output: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Responses API answer (`POST /responses`): the whole response, as the non-streamed
    body and inside response.created (in_progress, no output) and response.completed."""
    body: dict[str, Any] = {
        "id": "resp_fake", "object": "response", "created_at": int(time.time()),
        "status": status, "model": model, "error": None, "incomplete_details": None,
        "instructions": None, "metadata": {}, "parallel_tool_calls": True, "temperature": 1.0,
        "tool_choice": "auto", "tools": [], "top_p": 1.0,
        "output": _responses_items(turn) if output is None else output,
        "usage": responses_usage(turn) if status == "completed" else None,
    }
    return body


def responses_events(turn: ScriptedTurn, model: str) -> Iterator[Event]:
    sequence = iter(range(1_000_000))

    def event(name: str, **data: Any) -> Event:
        return name, json.dumps({"type": name, "sequence_number": next(sequence), **data})

    yield event("response.created", response=responses_body(turn, model, "in_progress", []))
    yield event("response.in_progress", response=responses_body(turn, model, "in_progress", []))
    for index, item in enumerate(_responses_items(turn)):
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "reasoning":
            yield event("response.output_item.added", output_index=index,
                        item={**item, "status": "in_progress", "summary": []})
            part = {"type": "summary_text", "text": ""}
            yield event("response.reasoning_summary_part.added", **where, summary_index=0,
                        part=part)
            for piece in _pieces(turn.reasoning, turn.chunk_size):
                yield event("response.reasoning_summary_text.delta", **where, summary_index=0,
                            delta=piece)
            yield event("response.reasoning_summary_text.done", **where, summary_index=0,
                        text=turn.reasoning)
            yield event("response.reasoning_summary_part.done", **where, summary_index=0,
                        part={**part, "text": turn.reasoning})
        elif item["type"] == "message":
            yield event("response.output_item.added", output_index=index,
                        item={**item, "status": "in_progress", "content": []})
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            yield event("response.content_part.added", **where, content_index=0, part=part)
            for piece in _pieces(turn.text, turn.chunk_size):
                yield event("response.output_text.delta", **where, content_index=0,
                            delta=piece, logprobs=[])
            if turn.stream_error is not None:
                yield event("error", code="server_error", message=turn.stream_error,
                            param=None)
                return
            yield event("response.output_text.done", **where, content_index=0,
                        text=turn.text, logprobs=[])
            yield event("response.content_part.done", **where, content_index=0,
                        part={**part, "text": turn.text})
        else:
            yield event("response.output_item.added", output_index=index,
                        item={**item, "status": "in_progress", "arguments": ""})
            for piece in _pieces(item["arguments"], turn.chunk_size):
                yield event("response.function_call_arguments.delta", **where, delta=piece)
            yield event("response.function_call_arguments.done", **where,
                        arguments=item["arguments"])
        yield event("response.output_item.done", output_index=index, item=item)
    if turn.stream_error is not None and not turn.text:
        yield event("error", code="server_error", message=turn.stream_error, param=None)
        return
    yield event("response.completed", response=responses_body(turn, model))


# --- Gemini generateContent ----------------------------------------------------------------

def gemini_usage(turn: ScriptedTurn) -> dict[str, Any]:
    """Gemini's shape: cached tokens inside the prompt's count, thought tokens beside the
    candidates' count."""
    told = usage_reported(turn)
    prompt, completion = told["prompt_tokens"], told["completion_tokens"]
    thoughts = told["reasoning_tokens"]
    body: dict[str, Any] = {"promptTokenCount": prompt,
                            "candidatesTokenCount": completion - thoughts,
                            "totalTokenCount": prompt + completion}
    if thoughts:
        body["thoughtsTokenCount"] = thoughts
    if told["cached_tokens"]:
        body["cachedContentTokenCount"] = told["cached_tokens"]
    return body


def _gemini_call(call: dict[str, Any]) -> dict[str, Any]:
    args = call.get("arguments", {})
    return {"functionCall": {"name": call["name"], "args": args if isinstance(args, dict)
                             else json.loads(args or "{}")}}


def _gemini_chunk(parts: list[dict[str, Any]], finish: str | None = None,
                  usage: dict[str, Any] | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "fake-gemini",
                            "responseId": "fake-gemini-response"}
    if usage is not None:
        body["usageMetadata"] = usage
    return body


def gemini_body(turn: ScriptedTurn) -> dict[str, Any]:
    """A Gemini generateContent answer (not streamed): thoughts, text, function calls."""
    parts: list[dict[str, Any]] = []
    if turn.reasoning:
        parts.append({"text": turn.reasoning, "thought": True})
    if turn.text:
        parts.append({"text": turn.text})
    parts += [_gemini_call(call) for call in turn.tool_calls]
    return _gemini_chunk(parts, "STOP", gemini_usage(turn))


def gemini_events(turn: ScriptedTurn) -> Iterator[Event]:
    """streamGenerateContent?alt=sse: thoughts and text in pieces, function calls whole (Gemini
    does not stream their arguments), the finish with the usage last."""
    for piece in _pieces(turn.reasoning, turn.chunk_size):
        yield None, json.dumps(_gemini_chunk([{"text": piece, "thought": True}]))
    for piece in _pieces(turn.text, turn.chunk_size):
        yield None, json.dumps(_gemini_chunk([{"text": piece}]))
    if turn.stream_error is not None:
        yield None, json.dumps({"error": {"code": 500, "message": turn.stream_error,
                                          "status": "INTERNAL"}})
        return
    calls = [_gemini_call(call) for call in turn.tool_calls]
    yield None, json.dumps(_gemini_chunk(calls, "STOP", gemini_usage(turn)))


def gemini_error(turn: ScriptedTurn) -> dict[str, Any]:
    """Google's error body: code, message and the status name."""
    if isinstance(turn.error, dict):
        return turn.error
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
             404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}
    return {"error": {"code": turn.status,
                      "message": turn.error or f"fake model server: scripted error {turn.status}",
                      "status": names.get(turn.status, "INTERNAL")}}


def is_text(event: Event) -> bool:
    """Whether a streamed event carries a piece of the answer's text (not reasoning)."""
    name, data = event
    try:
        body = json.loads(data)
    except ValueError:
        return False
    if name is not None:
        return name == "response.output_text.delta" or (
            name == "content_block_delta" and body["delta"].get("type") == "text_delta")
    if "candidates" in body:
        return any("text" in part and not part.get("thought") for c in body["candidates"]
                   for part in c.get("content", {}).get("parts", []))
    return any(choice.get("delta", {}).get("content") for choice in body.get("choices") or [])


def is_finish(event: Event) -> bool:
    """Whether a streamed event carries the finish (OpenAI's finish_reason, Anthropic's
    message_delta with its stop_reason, response.completed, Gemini's finishReason)."""
    name, data = event
    if name is not None:
        return name in ("message_delta", "response.completed")
    try:
        body = json.loads(data)
    except ValueError:
        return False
    if "candidates" in body:
        return any(c.get("finishReason") for c in body["candidates"])
    return any(choice.get("finish_reason") for choice in body.get("choices") or [])
