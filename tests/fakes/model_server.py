"""A real HTTP model server on 127.0.0.1 for tests: OpenAI chat completions, Anthropic messages,
OpenAI's Responses API (`POST /v1/responses`) and Gemini's generateContent
(`POST /v1beta/models/MODEL:generateContent`, and `:streamGenerateContent?alt=sse` streamed), all
streamed or not, from the same scripted turns.

Driven by a queue of scripted turns (or recorded cases replayed verbatim). LiteLLM talks to it over
HTTP exactly as it talks to a real provider:

    server = FakeModelServer().start()
    server.script(ScriptedTurn(text="hi"), ScriptedTurn(status=429, headers={"Retry-After": "1"}))
    # model "openai/fake-model", api_base=server.openai_base   (OpenAI format)
    # model "anthropic/fake-model", api_base=server.anthropic_base   (Anthropic format)
    # litellm.responses(model="openai/fake-model", api_base=server.openai_base)   (Responses)
    # model "gemini/fake-model", api_base=server.gemini_base   (Gemini format)

From another process: `python -m tests.fakes.model_server --script turns.json --port-file F`.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes import wire


@dataclass
class ScriptedTurn:
    """One scripted response. A non-200 status answers with an error body instead."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """Each {"name": str, "arguments": dict or raw str, "id": str | None (omitted when None)}."""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | str | None = None
    """Error body (dict sent as JSON, str as the error message); a default one when unset."""
    stream_error: str | None = None
    """Send this error mid-stream (after the text) instead of finishing normally."""
    chunk_delay_s: float = 0.0
    """Pause before each streamed event."""
    chunk_size: int = 8
    """Characters of text/reasoning/arguments per streamed delta."""
    usage: dict[str, int] | None = None
    """{"prompt_tokens": n, "completion_tokens": m}; defaults to small made-up counts."""
    report_usage: bool = True
    """False: the OpenAI form streams no usage chunk, even when the request asks for one (a
    server that reports none)."""
    signature: str = "sig-fake-0001"
    """Anthropic thinking-block signature."""
    fault: str | None = None
    """A streamed response gone wrong, one of FAULTS."""
    stall_s: float = 30.0
    """How long a "stall_*" fault stays silent (the connection then closes)."""
    pause_until: threading.Event | None = None
    """The stream pauses after its first piece of text until the test sets this (stall_s at
    most): what reached the person by then came while the model was still answering."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScriptedTurn:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown ScriptedTurn keys: {sorted(unknown)}")
        return cls(**data)


FAULTS = {
    "cut": "the stream ends (the connection closes) just before the finish",
    "cut_mid_event": "the connection closes half-way through the event before the finish",
    "empty": "200, an event-stream content type and an empty body",
    "json_body": "200 and the whole answer as one JSON body, to a streamed request",
    "stall_first": "no answer at all for stall_s (not even the headers)",
    "stall_mid": "the text, then silence for stall_s before the finish",
    "trickle": "the stream one byte a second",
}


@dataclass
class ReplayCase:
    """A recorded provider-wire case served verbatim."""

    case: dict[str, Any]


class FakeModelServer:
    """Threaded HTTP server; `.requests` holds every received JSON body in order."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._queue: deque[ScriptedTurn | ReplayCase] = deque()
        self._by_model: dict[str, deque[ScriptedTurn]] = {}
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.request_paths: list[str] = []
        self.request_times: list[float] = []
        """When each request arrived (time.monotonic())."""
        self.request_headers: list[dict[str, str]] = []
        self.unrouted: list[tuple[str, dict[str, Any]]] = []
        """(path, body) of each request to a route this server does not know: answered 404."""
        self.usage_served: list[dict[str, int]] = []
        """The usage each scripted answer reported, in order (wire.usage_reported): the
        server's own count, for the ledger's totals to be checked against."""
        self.requests_log: Path | None = None
        self._httpd = ThreadingHTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.05})
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- addresses -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_base(self) -> str:
        return self.url

    @property
    def gemini_base(self) -> str:
        """LiteLLM's `gemini/` api_base and GOOGLE_GEMINI_BASE_URL: requests go to
        `/v1beta/models/MODEL:generateContent` under it."""
        return self.url

    # --- script ----------------------------------------------------------------------------
    def script(self, *turns: ScriptedTurn | dict[str, Any]) -> FakeModelServer:
        """Queue responses, served one per request in order."""
        with self._lock:
            for turn in turns:
                self._queue.append(ScriptedTurn.from_dict(turn) if isinstance(turn, dict) else turn)
        return self

    def script_for(self, model: str, *turns: ScriptedTurn | dict[str, Any]) -> FakeModelServer:
        """Queue responses for requests naming `model` (the body's `model`, e.g. `fake-a` for
        `openai/fake-a`), served before the shared queue: parallel clients, each its own script."""
        with self._lock:
            queue = self._by_model.setdefault(model, deque())
            for turn in turns:
                queue.append(ScriptedTurn.from_dict(turn) if isinstance(turn, dict) else turn)
        return self

    def replay(self, case: dict[str, Any], times: int = 1) -> FakeModelServer:
        """Queue a recorded case (a provider-wire fixture dict), served verbatim `times` times."""
        with self._lock:
            self._queue.extend(ReplayCase(case) for _ in range(times))
        return self

    @property
    def pending(self) -> int:
        """Scripted responses not yet served."""
        with self._lock:
            return len(self._queue)

    def _next(self, body: dict[str, Any], path: str, headers: dict[str, str],
              model: str) -> Any:
        with self._lock:
            self.requests.append(body)
            self.request_times.append(time.monotonic())
            self.request_paths.append(path)
            self.request_headers.append(headers)
            if self.requests_log is not None:
                with self.requests_log.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"path": path, "body": body}) + "\n")
            number = len(self.requests)
            own = self._by_model.get(model)
            if own:
                return own.popleft()
            return self._queue.popleft() if self._queue else number


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes, as SSE needs
    server_version = "FakeModelServer/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        fake: FakeModelServer = self.server.fake  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        routed = route(path, body)
        if routed is None:
            with fake._lock:
                fake.unrouted.append((path, body))
            self._send_json(404, {"error": {"message": f"fake model server: no route {path}",
                                            "type": "not_found"}})
            return
        form, model, stream = routed
        item = fake._next(body, path, {k.lower(): v for k, v in self.headers.items()}, model)
        try:
            if isinstance(item, int):
                # x-should-retry tells clients (ours, the SDKs) not to retry: fail fast and loud
                self._send_json(500, wire.exhausted_error(form == "anthropic", item),
                                {"x-should-retry": "false"})
            elif isinstance(item, ReplayCase):
                self._serve_replay(item.case)
            else:
                self._serve_turn(item, body, form, model, stream)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (cancelled stream)

    # --- responses -------------------------------------------------------------------------
    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        sent = {k.lower() for k in (headers or {})}
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if "content-type" not in sent:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_sse(self, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        sent = {k.lower() for k in (headers or {})}
        for name, value in (headers or {}).items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        if "content-type" not in sent:
            self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _write_event(self, data: str, event: str | None = None, delay: float = 0.0) -> None:
        if delay:
            time.sleep(delay)
        frame = (f"event: {event}\n" if event else "") + f"data: {data}\n\n"
        self.wfile.write(frame.encode())
        self.wfile.flush()

    def _serve_turn(self, turn: ScriptedTurn, request: dict[str, Any], form: str, model: str,
                    stream: bool) -> None:
        if turn.status != 200:
            error = (wire.gemini_error(turn) if form == "gemini"
                     else wire.error_body(turn, form == "anthropic"))
            self._send_json(turn.status, error, turn.headers)
            return
        if turn.fault == "stall_first":
            time.sleep(turn.stall_s)
            return
        if not stream or turn.fault == "json_body":
            self._served(turn)
            self._send_json(200, _whole(turn, form, model), turn.headers)
            return
        self._start_sse(turn.headers)
        if turn.fault == "empty":
            return
        include_usage = form != "openai" or (turn.report_usage and bool(
            (request.get("stream_options") or {}).get("include_usage")))
        events = list(_events(turn, form, model, include_usage))
        finish = next((n for n, event in enumerate(events) if wire.is_finish(event)), len(events))
        if include_usage and turn.fault not in ("cut", "cut_mid_event", "stall_mid"):
            self._served(turn)  # counted before the client can read the end of it
        texts = 0
        for n, (name, data) in enumerate(events):
            if turn.pause_until is not None and wire.is_text((name, data)):
                if texts == 1:
                    turn.pause_until.wait(turn.stall_s)
                texts += 1
            if n == finish and turn.fault in ("cut", "cut_mid_event", "stall_mid"):
                if turn.fault == "cut_mid_event":
                    self.wfile.write(f"data: {data}"[: len(data) // 2].encode())
                    self.wfile.flush()
                if turn.fault == "stall_mid":
                    time.sleep(turn.stall_s)
                return
            if turn.fault == "trickle":
                for byte in ((f"event: {name}\n" if name else "") + f"data: {data}\n\n").encode():
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(1.0)
                continue
            self._write_event(data, name, turn.chunk_delay_s)

    def _served(self, turn: ScriptedTurn) -> None:
        fake = self.server.fake  # type: ignore[attr-defined]
        with fake._lock:
            fake.usage_served.append(wire.usage_reported(turn))

    def _serve_replay(self, case: dict[str, Any]) -> None:
        headers = dict(case.get("headers") or {})
        events = case.get("sse_events")
        if events is None:
            self._send_json(int(case.get("status") or 200), case.get("body"), headers)
            return
        names = case.get("sse_event_names") or [None] * len(events)
        self._start_sse(headers)
        for name, data in zip(names, events, strict=True):
            self._write_event(data, name)


def route(path: str, body: dict[str, Any]) -> tuple[str, str, bool] | None:
    """(wire format, model, streamed) of a request to `path`, or None for a route not served."""
    path = path.rstrip("/")
    model = str(body.get("model") or "fake-model")
    if path.endswith("/chat/completions"):
        return "openai", model, bool(body.get("stream"))
    if path.endswith("/messages"):
        return "anthropic", model, bool(body.get("stream"))
    if path.endswith("/responses"):
        return "responses", model, bool(body.get("stream"))
    head, _, method = path.rpartition(":")
    if "/models/" in head and method in ("generateContent", "streamGenerateContent"):
        return "gemini", head.rpartition("/models/")[2], method == "streamGenerateContent"
    return None


def _whole(turn: ScriptedTurn, form: str, model: str) -> dict[str, Any]:
    """The turn as one JSON body in `form`."""
    if form == "anthropic":
        return wire.anthropic_message(turn, model)
    if form == "responses":
        return wire.responses_body(turn, model)
    if form == "gemini":
        return wire.gemini_body(turn)
    return wire.openai_completion(turn, model)


def _events(turn: ScriptedTurn, form: str, model: str, include_usage: bool
            ) -> Iterator[wire.Event]:
    """The turn as SSE events in `form`."""
    if form == "anthropic":
        return wire.anthropic_events(turn, model)
    if form == "responses":
        return wire.responses_events(turn, model)
    if form == "gemini":
        return wire.gemini_events(turn)
    return wire.openai_events(turn, model, include_usage)


def main(argv: list[str] | None = None) -> int:
    """Serve a script from a JSON file until killed; write the port to --port-file."""
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.model_server",
                                     allow_abbrev=False)
    parser.add_argument("--script", type=Path, help="JSON list of ScriptedTurn dicts; "
                        'an item {"replay": CASE} or {"replay_file": PATH} serves a recorded case')
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path, help="write the chosen port here once listening")
    parser.add_argument("--requests-log", type=Path, help="append received bodies as JSON lines")
    args = parser.parse_args(argv)
    server = FakeModelServer(port=args.port)
    server.requests_log = args.requests_log
    for item in json.loads(args.script.read_text()) if args.script else []:
        if "replay" in item:
            server.replay(item["replay"])
        elif "replay_file" in item:
            server.replay(json.loads(Path(item["replay_file"]).read_text()))
        else:
            server.script(item)
    if args.port_file:
        tmp = args.port_file.with_suffix(".tmp")
        tmp.write_text(str(server.port))
        tmp.replace(args.port_file)
    print(f"fake model server on {server.url}", flush=True)
    try:
        server._httpd.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
