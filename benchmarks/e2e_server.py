"""A paced model server for the end-to-end benchmark: OpenAI chat completions streamed as SSE at a
set rate in tokens per second, in chunks of 1-4 tokens as real providers send them; and, for the
peers (benchmarks/peers_bench.py), Anthropic messages, OpenAI's Responses API and Gemini's
streamGenerateContent, built by tests/fakes/wire.py (the fake model server's own wire formats)
in pieces of 2.5 tokens (10 characters, the mean of 1-4 tokens) at the same rate.

Run as its own process (so its work does not share a GIL with the app or the harness):

    python -m benchmarks.e2e_server --rate 1000 --tokens 5000

It prints `PORT n` once listening, then one line per request, flushed, with wall-clock stamps
(time.time(), comparable across processes): `REQUEST t n`, `FIRST t n` (first content chunk
written), `LAST t rate n` (the last content chunk written; the finish and [DONE] follow at once),
where n is the answer's number; `SIDE t` for a request answered "ok" at once (a model other than
MAIN_MODEL: a peer's title or summary model, or a request naming no prompt part).
A token is 4 characters of `answer_text()`; each answer ends with END_MARKER and its number: the
"part N" of the newest prompt in the request (prompts say "explain app.py, part N", or "say hi
briefly, part N" for an answer of --short-tokens), else the count of answers so far.
The usage reports 10 prompt tokens; with `--count-prompt`, the request's own tokens as a provider
counts them (tiktoken's cl100k_base over its messages and tool schemas, in this process).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes import wire
from tests.fakes.model_server import ScriptedTurn, route

END_MARKER = "END-OF-ANSWER"
CHARS_PER_TOKEN = 4
MAIN_MODEL = "fake-model"
SHORT = "say hi briefly"
_PART = re.compile(rb"(explain app\.py|" + SHORT.encode() + rb"), part (\d+)")

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
        stamp = time.time()
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        request = json.loads(raw or b"{}")
        server: _Server = self.server  # type: ignore[assignment]
        form, model, stream = route(self.path.split("?", 1)[0], request) or ("openai", "", False)
        parts = [(int(n), kind) for kind, n in _PART.findall(raw)]
        if model != MAIN_MODEL or (form != "openai" and not parts):
            _say(f"SIDE {stamp:.6f}")
            if stream:
                self._side_stream(form, model)
            else:
                self._whole(form, model, "ok", 1)
            return
        server.count += 1
        number, kind = max(parts) if parts else (server.count, b"")
        _say(f"REQUEST {stamp:.6f} {number}")
        tokens = server.short_tokens if kind == SHORT.encode() else server.tokens
        text = answer_text(tokens, number)
        if not stream:
            self._whole(form, model, text, tokens)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            if form == "openai":
                self._stream(text, server, model, number, request)
            else:
                self._stream_wire(form, model, text, server, number)
        except (BrokenPipeError, ConnectionResetError):
            _say(f"CLOSED {time.time():.6f}")

    def _whole(self, form: str, model: str, text: str, tokens: int) -> None:
        turn = ScriptedTurn(text=text, usage={"prompt_tokens": 10, "completion_tokens": tokens})
        body = {"anthropic": lambda: wire.anthropic_message(turn, model),
                "responses": lambda: wire.responses_body(turn, model),
                "gemini": lambda: wire.gemini_body(turn)}.get(
                    form, lambda: wire.openai_completion(turn, model))()
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _side_stream(self, form: str, model: str) -> None:
        """A streamed "ok", unpaced and unstamped."""
        turn = ScriptedTurn(text="ok", usage={"prompt_tokens": 10, "completion_tokens": 1})
        events = {"anthropic": lambda: wire.anthropic_events(turn, model),
                  "responses": lambda: wire.responses_events(turn, model),
                  "gemini": lambda: wire.gemini_events(turn)}.get(
                      form, lambda: wire.openai_events(turn, model, include_usage=True))()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            self.wfile.write(((f"event: {name}\n" if name else "") + f"data: {data}\n\n").encode())
        self.wfile.flush()

    def _stream_wire(self, form: str, model: str, text: str, server: _Server, number: int
                     ) -> None:
        """`text` in `form`'s events (tests/fakes/wire.py), the text-bearing ones paced."""
        turn = ScriptedTurn(text=text, chunk_size=10, usage={
            "prompt_tokens": 10, "completion_tokens": len(text) // CHARS_PER_TOKEN})
        events = list({"anthropic": lambda: wire.anthropic_events(turn, model),
                       "responses": lambda: wire.responses_events(turn, model),
                       "gemini": lambda: wire.gemini_events(turn)}[form]())
        texts = [_text_of(data) for _, data in events]
        last = max(n for n, piece in enumerate(texts) if piece)
        start, sent_tokens = time.perf_counter(), 0.0
        for n, ((name, data), piece) in enumerate(zip(events, texts, strict=True)):
            if piece:
                pause = start + sent_tokens / server.rate - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
            self.wfile.write(((f"event: {name}\n" if name else "") + f"data: {data}\n\n").encode())
            self.wfile.flush()
            if piece and not sent_tokens:
                _say(f"FIRST {time.time():.6f} {number}")
            sent_tokens += len(piece) / CHARS_PER_TOKEN
            if n == last:
                rate = sent_tokens / max(1e-6, time.perf_counter() - start)
                _say(f"LAST {time.time():.6f} {rate:.1f} {number}")

    def _stream(self, text: str, server: _Server, model: str, number: int,
                request: dict[str, Any]) -> None:
        def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
                    "model": model, "choices": [{"index": 0, "delta": delta,
                                                 "finish_reason": finish}], **extra}
            return f"data: {json.dumps(body)}\n\n".encode()

        self.wfile.write(event({"role": "assistant", "content": ""}))
        self.wfile.flush()
        pieces = chunks(text, number)
        start, sent_tokens = time.perf_counter(), 0
        for n, piece in enumerate(pieces):
            due = start + sent_tokens / server.rate
            pause = due - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            self.wfile.write(event({"content": piece}))
            self.wfile.flush()
            if n == 0:
                _say(f"FIRST {time.time():.6f} {number}")
            sent_tokens += max(1, len(piece) // CHARS_PER_TOKEN)
        rate = sent_tokens / (time.perf_counter() - start)
        _say(f"LAST {time.time():.6f} {rate:.1f} {number}")
        prompt = _prompt_tokens(request) if server.count_prompt else 10
        usage = {"prompt_tokens": prompt, "completion_tokens": sent_tokens,
                 "total_tokens": sent_tokens + prompt}
        self.wfile.write(event({}, "stop") + b"data: " + json.dumps(
            {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
             "model": model, "choices": [], "usage": usage}).encode() + b"\n\ndata: [DONE]\n\n")
        self.wfile.flush()


def _prompt_tokens(request: dict[str, Any]) -> int:
    """The request's tokens as an OpenAI model reports them: its messages and tool schemas."""
    from valarmind_tui.context.tokens import count_json_tokens, count_message_tokens

    return count_message_tokens(request.get("messages") or []) + count_json_tokens(
        request.get("tools") or [])


def _text_of(data: str) -> str:
    """The answer text an Anthropic, Responses API or Gemini event carries ("" for none)."""
    try:
        body = json.loads(data)
    except ValueError:
        return ""
    if body.get("type") == "content_block_delta":
        return str(body["delta"].get("text") or "")
    if body.get("type") == "response.output_text.delta":
        return str(body["delta"])
    return "".join(str(part.get("text") or "") for candidate in body.get("candidates") or []
                   for part in candidate["content"]["parts"])


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    rate = 1000.0
    tokens = 5000
    short_tokens = 20
    count = 0
    count_prompt = False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.e2e_server")
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens per second")
    parser.add_argument("--tokens", type=int, default=5000, help="tokens per answer")
    parser.add_argument("--short-tokens", type=int, default=20,
                        help=f"tokens per answer to a prompt saying {SHORT!r}")
    parser.add_argument("--count-prompt", action="store_true",
                        help="report the request's own token count as its prompt tokens")
    args = parser.parse_args(argv)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.rate, server.tokens, server.short_tokens = args.rate, args.tokens, args.short_tokens
    server.count_prompt = args.count_prompt
    _say(f"PORT {server.server_address[1]}")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever(poll_interval=0.05)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
