"""The model process the TUI starts: litellm runs there, the face only folds events; a stream
closed early is cancelled on the wire; a child that dies fails its stream plainly and is
replaced; it cannot be confused by stray output."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.core.errors import ProviderError
from valarmind_tui.providers import io_thread
from valarmind_tui.providers.base import ModelRequest, TextPiece, TurnComplete
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.providers.normalize import TurnAccumulator
from valarmind_tui.providers.process import client as model_process

ROOT = Path(__file__).resolve().parents[2]
TOOL = {"type": "function", "function": {
    "name": "read_file", "description": "read", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}}}}}


def _provider(api_base: str) -> LiteLLMProvider:
    return LiteLLMProvider(ProviderConfig(
        model="openai/fake-model", api_base=api_base, api_key="sk-test", max_retries=0,
        timeout_s=20))


def _request() -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": "hi"}], tools=[TOOL])


_FACE = r"""
import asyncio, json, sys
from valarmind_tui.providers import io_thread
from valarmind_tui.providers.process import client as model_process
if sys.argv[2] == "child":
    model_process.start()
from valarmind_tui.providers.base import ModelRequest
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

async def main():
    provider = LiteLLMProvider(ProviderConfig(model="openai/fake-model", api_base=sys.argv[1],
                                              api_key="sk-test"))
    tool = {"type": "function", "function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}}}}}
    pieces = [p async for p in provider.stream(ModelRequest(
        messages=[{"role": "user", "content": "hi"}], tools=[tool]))]
    turn = pieces[-1].turn
    print(json.dumps({
        "text": turn.text, "calls": [[c.name, c.arguments] for c in turn.tool_calls],
        "tokens": [turn.usage.prompt_tokens, turn.usage.completion_tokens],
        "litellm": "litellm" in sys.modules,
        "mcp_gateway": "litellm.responses.mcp.chat_completions_handler" in sys.modules,
    }))

asyncio.run(main())
"""


def _face(api_base: str, where: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _FACE, api_base, where], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_with_a_model_process_the_face_never_imports_litellm(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="hello from the child", usage={
        "prompt_tokens": 12, "completion_tokens": 4},
        tool_calls=[{"name": "read_file", "arguments": {"path": "a.py"}}]))
    got = _face(fake_model.openai_base, "child")
    assert got["text"] == "hello from the child"
    assert got["calls"] == [["read_file", {"path": "a.py"}]]
    assert got["tokens"] == [12, 4]
    assert got["litellm"] is False


def test_a_request_with_tools_skips_litellms_proxy_gateway_and_never_sends_the_flag(
        fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="plain"))
    got = _face(fake_model.openai_base, "here")
    assert got["text"] == "plain" and got["litellm"] is True
    assert got["mcp_gateway"] is False  # ~0.6 s of LiteLLM's proxy, imported for nothing
    body = fake_model.requests[-1]
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert not [key for key in body if "mcp" in key]


class _HangingSSE:
    """A server that sends one chunk and then waits to see whether the client hangs up."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self.port = self._sock.getsockname()[1]
        self.hung_up = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self._sock.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            while len(body) < length:
                body += conn.recv(65536)
            chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"},
                                  "finish_reason": None}]}
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Connection: close\r\n\r\ndata: " + json.dumps(chunk).encode()
                         + b"\n\n")
            conn.settimeout(30)
            try:
                while conn.recv(1024):
                    pass
            except OSError:
                return
            self.hung_up.set()


async def test_closing_a_stream_early_hangs_up_on_the_server(model_child: None) -> None:
    server = _HangingSSE()
    stream = _provider(f"http://127.0.0.1:{server.port}/v1").stream(_request())
    assert await anext(stream) == TextPiece("hi")
    await stream.aclose()
    assert await asyncio.to_thread(server.hung_up.wait, 15), "the request was never cancelled"


async def test_a_child_that_dies_fails_its_stream_plainly_and_the_next_runs_in_a_new_one(
        fake_model: FakeModelServer, model_child: None) -> None:
    fake_model.script(ScriptedTurn(text="x" * 400, chunk_delay_s=0.05),
                      ScriptedTurn(text="after the crash"))
    provider = _provider(fake_model.openai_base)
    first = model_process.running()
    assert first is not None
    stream = provider.stream(_request())
    assert isinstance(await anext(stream), TextPiece)
    os.kill(first.pid, signal.SIGKILL)
    with pytest.raises(ProviderError, match=r"model process stopped \(exit code -9\)"):
        async for _ in stream:
            pass
    pieces = [p async for p in provider.stream(_request())]
    assert isinstance(pieces[-1], TurnComplete)
    assert pieces[-1].turn.text == "after the crash"
    second = model_process.running()
    assert second is not None and second.pid != first.pid


def test_stray_output_on_the_childs_stdout_is_not_taken_for_a_message() -> None:
    noisy = ("print('not a message'); print('{\"i\": 1, \"r\": 5}'); import runpy; "
             "runpy.run_module('valarmind_tui.providers.process.worker', run_name='__main__')")
    process = model_process.ModelProcess([sys.executable, "-P", "-c", noisy])
    try:
        assert process.call("context_window", model="openai/gpt-4o") == 128000
    finally:
        process.stop()


async def test_a_child_that_cannot_start_is_reported_at_once_with_its_last_words() -> None:
    broken = ("import sys; print('ModuleNotFoundError: No module named litellm', "
              "file=sys.stderr); sys.exit(1)")
    process = model_process.ModelProcess([sys.executable, "-c", broken])
    try:
        with pytest.raises(model_process.RemoteFailure) as failed:
            async for _ in process.pieces({"model": "openai/x"}, TurnAccumulator()):
                pass
    finally:
        process.stop()
    failure = failed.value.failure
    assert failure.kind == "fatal"  # not retried: waiting cannot install litellm
    assert "exit code 1" in failure.message and "No module named litellm" in failure.message


def test_a_face_quitting_during_the_import_does_not_wait_for_it() -> None:
    process = model_process.ModelProcess()  # still importing litellm for ~2.5 s
    started = time.monotonic()
    process.stop()
    assert time.monotonic() - started < 1.5


async def test_a_child_that_streamed_exits_by_itself_when_the_face_quits(
        fake_model: FakeModelServer) -> None:
    """The face waits for the child when it quits (0.2 s, then SIGTERM): the interpreter's own
    teardown of everything litellm loaded took longer, so every quit of the TUI waited the full
    0.2 s and then ended the child by a signal."""
    fake_model.script(ScriptedTurn(text="streamed before quitting"))
    process = model_process.ModelProcess()
    try:
        kwargs = _provider(fake_model.openai_base)._kwargs(_request(), "openai/fake-model")
        acc = TurnAccumulator()
        async for _ in process.pieces(kwargs, acc):
            pass
        assert acc.finish().text == "streamed before quitting"
    finally:
        process.stop()
    assert process.exit_code == 0


async def test_a_fast_stream_reaches_the_face_in_batches_and_its_end_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    inbox = io_thread.Inbox(loop)

    def reader() -> None:  # as the reader thread: a chunk every 2 ms (or slower), then the end
        for n in range(150):
            inbox.post({"d": {"content": f"{n},"}}, urgent=False)
            time.sleep(0.002)
        inbox.post({"end": 1}, urgent=True)

    started = time.monotonic()
    threading.Thread(target=reader, daemon=True).start()
    batches: list[list[dict[str, object]]] = []
    while not any("end" in m for b in batches for m in b):
        batches.append(await inbox.take())
    took = time.monotonic() - started
    text = "".join(str(m["d"]["content"]) for b in batches for m in b if "d" in m)  # type: ignore[index]  # why: messages are plain JSON
    assert text == "".join(f"{n}," for n in range(150))  # all of it, in order
    # woken at most once per BATCH_S however long the posting took (a loaded machine stretches
    # the 0.3 s), plus the first text and the end: not 150 wake-ups
    assert len([b for b in batches if b]) <= took / io_thread.BATCH_S + 2, (len(batches), took)
    # right after a take, text waits for the batch; a hold that long can only be the timer
    monkeypatch.setattr(io_thread, "BATCH_S", 30.0)
    inbox.post({"d": {"content": "x"}}, urgent=False)
    inbox.post({"end": 1}, urgent=True)  # the end is not held back, nor the text before it
    assert await asyncio.wait_for(inbox.take(), 10) == [{"d": {"content": "x"}}, {"end": 1}]


async def test_when_no_child_can_start_litellm_runs_in_this_process(
        fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    had_one = model_process.running() is not None  # the module's child, if started
    model_process.stop()
    monkeypatch.setattr(model_process, "worker_argv", lambda: [str(tmp_path / "no-python")])
    try:
        assert model_process.start() is None
        assert model_process.running() is None
        fake_model.script(ScriptedTurn(text="answered here"))
        pieces = [p async for p in _provider(fake_model.openai_base).stream(_request())]
    finally:
        monkeypatch.undo()
        if had_one:
            model_process.start()
    assert isinstance(pieces[-1], TurnComplete) and pieces[-1].turn.text == "answered here"


async def test_the_child_writes_a_fast_streams_text_in_few_lines_and_a_finish_at_once() -> None:
    """At ~400 chunks a second, each its own line meant a write in the child and a read, a JSON
    parse and a wake-up in the face; text is merged and written at most every BATCH_S."""
    from valarmind_tui.providers.process.worker import Worker

    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    worker = Worker(os.fdopen(write_fd, "wb"), loop)
    call = {"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": "{}"}}
    started = loop.time()
    for n in range(150):
        worker.send({"i": 1, "d": {"content": f"{n},"}, "f": None}, text=True)
        await asyncio.sleep(0.002)
    worker.send({"i": 1, "d": {"tool_calls": [call]}, "f": None}, text=True)
    worker.send({"i": 1, "d": {"content": "last"}, "f": "stop"}, text=True)
    took = loop.time() - started
    worker.send({"i": 1, "end": 1})
    os.set_blocking(read_fd, False)
    lines = os.read(read_fd, 1 << 20).decode().splitlines()  # the end written with no loop turn
    os.close(read_fd)
    messages = [json.loads(line) for line in lines]
    text = "".join(m["d"].get("content", "") for m in messages if "d" in m)
    assert text == "".join(f"{n}," for n in range(150)) + "last"
    # a write at most every BATCH_S however long the sending took (0.3 s, longer when the machine
    # is loaded), the first at once; the last one adds the tool call, the finish and the end
    assert len(messages) <= took / io_thread.BATCH_S + 5, (len(messages), took)  # not 153
    assert [m["d"] for m in messages if "d" in m and "tool_calls" in m["d"]] == [
        {"tool_calls": [call]}]  # never merged into text
    assert messages[-2]["f"] == "stop" and messages[-1] == {"i": 1, "end": 1}


async def test_the_answers_last_words_go_out_with_its_finish_before_the_loop_gets_a_turn(
) -> None:
    """LiteLLM parses the usage chunk and ends the stream before the loop gets a turn: the
    finish (and the text waiting for a batch) is written when it comes, not then."""
    from valarmind_tui.providers.process.worker import Worker

    read_fd, write_fd = os.pipe()
    worker = Worker(os.fdopen(write_fd, "wb"), asyncio.get_running_loop())
    worker.send({"i": 1, "d": {"content": "Hello"}, "f": None}, text=True)
    worker.send({"i": 1, "d": {"content": " there"}, "f": None}, text=True)
    worker.send({"i": 1, "d": {}, "f": "stop"})
    os.set_blocking(read_fd, False)
    with contextlib.suppress(BlockingIOError):
        lines = os.read(read_fd, 1 << 20).decode().splitlines()  # no turn of the loop yet
    messages = [json.loads(line) for line in lines]
    assert "".join(m["d"].get("content", "") for m in messages) == "Hello there"
    assert messages[-1]["f"] == "stop"
    worker.send({"i": 1, "u": [10, 2, None, 0, 0]})
    worker.send({"i": 1, "end": 1})
    later = [json.loads(line) for line in os.read(read_fd, 1 << 20).decode().splitlines()]
    os.close(read_fd)
    assert later == [{"i": 1, "u": [10, 2, None, 0, 0]}, {"i": 1, "end": 1}]


async def test_a_stream_that_never_gives_the_loop_a_turn_still_writes_its_text_as_it_goes() -> None:
    """Chunks already waiting in the socket are parsed one after the other without a turn of
    the loop (2,000 tokens at 20,000 tokens/s): the text went out in one piece with the finish."""
    from valarmind_tui.providers.process.worker import Worker

    read_fd, write_fd = os.pipe()
    worker = Worker(os.fdopen(write_fd, "wb"), asyncio.get_running_loop())
    for n in range(150):
        worker.send({"i": 1, "d": {"content": f"{n},"}, "f": None}, text=True)
        time.sleep(0.002)  # parsing the next chunk: the loop gets no turn
    os.set_blocking(read_fd, False)

    def written() -> list[str]:
        with contextlib.suppress(BlockingIOError):
            return os.read(read_fd, 1 << 20).decode().splitlines()
        return []

    early = written()
    await asyncio.sleep(2 * io_thread.BATCH_S)
    rest = written()
    os.close(read_fd)
    text = "".join(json.loads(line)["d"]["content"] for line in early + rest)
    assert text == "".join(f"{n}," for n in range(150))  # all of it, in order
    assert len(early) >= 5, early  # ~0.3 s / BATCH_S lines while the loop was held


async def test_a_final_answers_end_waits_for_its_last_words_to_be_drawn(
        fake_model: FakeModelServer, model_child: None) -> None:
    """The stream's end (LiteLLM's bookkeeping of the whole stream, the usage) waits
    LAST_WORDS_FIRST_S after a final answer's finish, the time the face takes to draw the last
    words: its CPU no longer competes with that frame."""
    from valarmind_tui.providers.process.worker import LAST_WORDS_FIRST_S

    fake_model.script(ScriptedTurn(text="the last words"))
    words_at = ended_at = 0.0
    turn = None
    async for piece in _provider(fake_model.openai_base).stream(_request()):
        if isinstance(piece, TextPiece):
            words_at = time.monotonic()
        elif isinstance(piece, TurnComplete):
            ended_at, turn = time.monotonic(), piece.turn
    assert turn is not None and turn.text == "the last words"
    assert turn.usage is not None and turn.usage.completion_tokens > 0  # the end still comes
    assert ended_at - words_at >= LAST_WORDS_FIRST_S * 0.9
