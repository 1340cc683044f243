"""One canned streamed answer on 127.0.0.1, for the warm-up to read to its end.

A request refused at connect imports what a request needs, but the first answer read also pays
for its own first time: the response types' validators built, the stream's handlers imported,
the finished stream's bookkeeping. Measured in the model process: the first answer after a
refused warm-up took 12 ms to its first chunk and 24 ms to its end, later ones 4.5 and 7.5.
This server answers one request with a short stream in the wire format the provider speaks
(with its usage, so nothing estimates tokens), then closes. It reads what it is sent and keeps
none of it; the warm-up's key is a placeholder, and nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

ANTHROPIC_WIRE = frozenset({"anthropic"})
OPENAI_WIRE = frozenset({
    "openai", "hosted_vllm", "lm_studio", "openrouter", "deepseek", "groq", "mistral",
    "together_ai", "xai", "llamafile",
})
"""Providers LiteLLM streams as OpenAI chat completions (`data:` chunks, then `[DONE]`)."""

MAX_REQUEST_BYTES = 1_000_000


def _events(*events: tuple[str | None, dict[str, Any] | str]) -> bytes:
    lines = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        lines.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(lines).encode()


def canned_stream(provider: str) -> bytes | None:
    """The SSE body of a one-word answer in `provider`'s wire format; None for another."""
    if provider in OPENAI_WIRE:
        chunk = {"id": "warm-up", "object": "chat.completion.chunk", "created": 0,
                 "model": "warm-up"}
        return _events(
            (None, {**chunk, "choices": [{"index": 0, "finish_reason": None,
                                          "delta": {"role": "assistant", "content": "warm"}}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            (None, {**chunk, "choices": [],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
            (None, "[DONE]"))
    if provider in ANTHROPIC_WIRE:
        return _events(
            ("message_start", {"type": "message_start", "message": {
                "id": "msg_warm_up", "type": "message", "role": "assistant", "model": "warm-up",
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": "warm"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"}))
    return None


@contextlib.asynccontextmanager
async def answering_once(body: bytes) -> AsyncIterator[str]:
    """`http://127.0.0.1:PORT` answering its first request with `body` as a 200 event
    stream; closed when the block ends."""
    answered = False

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal answered
        try:
            if answered:
                return
            answered = True
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip() or 0)
            if 0 < length <= MAX_REQUEST_BYTES:
                await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                         b"content-length: " + str(len(body)).encode()
                         + b"\r\nconnection: close\r\n\r\n" + body)
            await writer.drain()
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
