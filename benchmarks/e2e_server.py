"""A paced model server for the end-to-end benchmark: OpenAI chat completions streamed as SSE at a
set rate in tokens per second, in chunks of 1-4 tokens as real providers send them.

Run as its own process (so its work does not share a GIL with the app or the harness):

    python -m benchmarks.e2e_server --rate 1000 --tokens 5000

It prints `PORT n` once listening, then one line per request, flushed, with wall-clock stamps
(time.time(), comparable across processes): `REQUEST t`, `FIRST t` (first content chunk written),
`LAST t` (the last content chunk written; the finish and [DONE] follow at once).
A token is 4 characters of `answer_text()`; each answer ends with END_MARKER and a number.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

END_MARKER = "END-OF-ANSWER"
CHARS_PER_TOKEN = 4

_SECTION = (
    "## Step {n}\n\nWe change `greet` in **app.py** so that it *returns* a greeting, and the "
    "caller prints it.\n\n- read the file\n- edit the function\n- run the tests\n\n"
    "```python\ndef greet(name):\n    return f'Hello {{name}}'\n```\n\n"
)


def answer_text(tokens: int, number: int) -> str:
    """About `tokens` tokens of Markdown (prose, lists, code; never a 'z'), then the marker."""
    text, n = "", 0
    while len(text) < tokens * CHARS_PER_TOKEN:
        n += 1
        text += _SECTION.format(n=n)
    return text[: tokens * CHARS_PER_TOKEN].rstrip() + f"\n\nDone: {END_MARKER}-{number}"


def chunks(text: str, seed: int) -> list[str]:
    """`text` cut in pieces of 1-4 tokens."""
    rng, pieces, i = random.Random(seed), [], 0
    while i < len(text):
        size = rng.randint(1, 4) * CHARS_PER_TOKEN
        pieces.append(text[i:i + size])
        i += size
    return pieces


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the stream ends when the connection closes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        _say(f"REQUEST {time.time():.6f}")
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        server: _Server = self.server  # type: ignore[assignment]
        server.count += 1
        text = answer_text(server.tokens, server.count)
        if not request.get("stream"):
            body = {"id": "chatcmpl-bench", "object": "chat.completion", "created": 0,
                    "model": request.get("model", "bench"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": server.tokens,
                              "total_tokens": server.tokens + 10}}
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            self._stream(text, server, str(request.get("model", "bench")))
        except (BrokenPipeError, ConnectionResetError):
            _say(f"CLOSED {time.time():.6f}")

    def _stream(self, text: str, server: _Server, model: str) -> None:
        def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
                    "model": model, "choices": [{"index": 0, "delta": delta,
                                                 "finish_reason": finish}], **extra}
            return f"data: {json.dumps(body)}\n\n".encode()

        self.wfile.write(event({"role": "assistant", "content": ""}))
        self.wfile.flush()
        pieces = chunks(text, server.count)
        start, sent_tokens = time.perf_counter(), 0
        for n, piece in enumerate(pieces):
            due = start + sent_tokens / server.rate
            pause = due - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            self.wfile.write(event({"content": piece}))
            self.wfile.flush()
            if n == 0:
                _say(f"FIRST {time.time():.6f}")
            sent_tokens += max(1, len(piece) // CHARS_PER_TOKEN)
        _say(f"LAST {time.time():.6f} {sent_tokens / (time.perf_counter() - start):.1f}")
        usage = {"prompt_tokens": 10, "completion_tokens": sent_tokens,
                 "total_tokens": sent_tokens + 10}
        self.wfile.write(event({}, "stop") + b"data: " + json.dumps(
            {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
             "model": model, "choices": [], "usage": usage}).encode() + b"\n\ndata: [DONE]\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    rate = 1000.0
    tokens = 5000
    count = 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.e2e_server")
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens per second")
    parser.add_argument("--tokens", type=int, default=5000, help="tokens per answer")
    args = parser.parse_args(argv)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.rate, server.tokens = args.rate, args.tokens
    _say(f"PORT {server.server_address[1]}")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever(poll_interval=0.05)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
