"""The model process's own side (`python -P -m valarmind_tui.providers.process.worker`): import
litellm at once, then serve the requests of providers/process/client.py until stdin closes.
The model daemon (providers/daemon/server.py) runs the same Worker on each of its connections.

Messages go out on the descriptor named by $VALARMIND_MODEL_FD, not stdout, so a library's
print can never pass for one.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable
from contextlib import aclosing
from typing import IO, Any, Protocol

from valarmind_tui.core.heap import release_free_memory
from valarmind_tui.providers.io_thread import BATCH_S

Message = dict[str, Any]

class Output(Protocol):
    """Where a Worker writes its lines: the events pipe, or a daemon's connection."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


DELTA_FIELDS = ("content", "reasoning_content", "reasoning", "reasoning_details",
                "thinking_blocks", "tool_calls")
"""What normalize.TurnAccumulator reads of a delta or message."""


def plain(value: Any) -> Any:
    """`value` as JSON-able data: pydantic objects and their nesting become dicts and lists."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(exclude_none=True))
    if hasattr(value, "__dict__"):
        return plain(vars(value))
    return str(value)


def wire_delta(delta: Any) -> Message:
    """The fields of a LiteLLM delta (or message) that the accumulator reads, as plain data."""
    from valarmind_tui.providers.normalize import _get

    wired: Message = {}
    for name in DELTA_FIELDS:
        value = _get(delta, name)
        if value is not None and value != "" and value != []:
            wired[name] = plain(value)
    return wired


def encode(request_id: int, event: Any) -> Message:
    """One litellm_call event as a protocol message."""
    from valarmind_tui.providers.litellm_call import DeltaEvent, MessageEvent

    if isinstance(event, DeltaEvent):
        return {"i": request_id, "d": wire_delta(event.delta), "f": event.finish_reason}
    if isinstance(event, MessageEvent):
        return {"i": request_id, "m": wire_delta(event.message), "f": event.finish_reason}
    usage = event.usage
    return {"i": request_id, "u": [usage.prompt_tokens, usage.completion_tokens, usage.cost_usd,
                                   usage.cached_tokens, usage.reasoning_tokens]}


_TEXT_ONLY = ({"content"}, {"reasoning_content"})


def _merged(last: Message, message: Message) -> bool:
    """Fold `message` into `last` when both are plain text of one stream (no finish, no tool
    call, the same kind of text): one line on the pipe instead of two. True when folded."""
    if "d" not in message or "d" not in last or last["i"] != message["i"]:
        return False
    if last["f"] or message["f"] or set(last["d"]) != set(message["d"]):
        return False
    if set(message["d"]) not in _TEXT_ONLY:
        return False
    for key, text in message["d"].items():
        last["d"][key] += text
    return True


LAST_WORDS_FIRST_S = 0.012
"""In the TUI's model process, an answer's stream end (LiteLLM's bookkeeping of the whole
stream, then the usage and the end) waits this long after its final finish is written: the time
the face takes to draw the last words. Run at once, its CPU competed with that frame for the
two cores (the face's frame, the terminal, this process): the last chunk -> last words on
screen of a short answer, 15 prompts each side, medians 15.8 -> 11.9, 15.9 -> 11.4 and
13.2 -> 11.2 ms in three sittings (benchmarks/last_chunk_bench.py at 20,000 tokens/s). An
answer that calls tools does not wait (the face runs them once the stream ended), nor does the
model daemon's `-p`."""
NOT_FINAL = (None, "tool_calls", "function_call")
"""A message's finish that ends no answer: none yet, or tools to run."""


class Worker:
    """Runs requests as tasks on one event loop; writes their messages in batches: a stream's
    text at most every BATCH_S (consecutive pieces merged), anything else at once."""

    def __init__(self, out: Output, loop: asyncio.AbstractEventLoop, *,
                 last_words_first_s: float = 0.0) -> None:
        """`last_words_first_s`: after an answer's final finish, how long its stream's end
        waits (LAST_WORDS_FIRST_S)."""
        self._out, self._loop = out, loop
        self._last_words_first_s = last_words_first_s
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._unsent: list[Message] = []
        self._flush_at: float | None = None
        """When the scheduled write runs (loop time); None when none is scheduled."""
        self._flush_handle: asyncio.Handle | None = None
        self._last_flush = 0.0
        self.done = asyncio.Event()

    def send(self, message: Message, *, text: bool = False) -> None:
        """Queue `message`; `text` (a delta of plain text) may wait up to BATCH_S for more.
        Anything else (a finish, the end, an answer) is written now, with the text before it."""
        if not (text and self._unsent and _merged(self._unsent[-1], message)):
            self._unsent.append(message)
        if not text:
            # Not at the loop's next turn: LiteLLM parses the usage chunk and ends the stream
            # (its end-of-stream bookkeeping) before giving the loop one, 1-4 ms that the
            # answer's last words waited for on their way to the screen.
            if self._flush_handle is not None:
                self._flush_handle.cancel()
            self._flush()
            return
        now = self._loop.time()
        due = max(now, self._last_flush + BATCH_S)
        if self._flush_handle is not None and self._flush_at is not None and self._flush_at <= now:
            # Overdue: a stream whose chunks wait in the socket is iterated without giving the
            # loop a turn, so the scheduled write would wait for its end (a 2,000-token answer
            # at 20,000 tokens/s reached the face in one piece with its finish, 160 ms late).
            self._flush_handle.cancel()
            self._flush()
            return
        if self._flush_at is not None and self._flush_at <= due:
            return
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        self._flush_at = due
        if due <= now:
            self._flush_handle = self._loop.call_soon(self._flush)
        else:
            self._flush_handle = self._loop.call_at(due, self._flush)

    def _flush(self) -> None:
        messages, self._unsent = self._unsent, []
        self._flush_at, self._flush_handle = None, None
        self._last_flush = self._loop.time()
        data = b"".join(json.dumps(message).encode() + b"\n" for message in messages)
        try:
            self._out.write(data)
            self._out.flush()
        except (BrokenPipeError, OSError):
            self.done.set()  # nobody reads any more

    def cancel_all(self) -> None:
        """Cancel every request still running (whoever asked is gone)."""
        for task in list(self._tasks.values()):
            task.cancel()

    def handle(self, line: bytes | None) -> None:
        """One request line (None: stdin closed)."""
        if line is None:
            self.done.set()
            return
        try:
            message = json.loads(line)
            request_id, op = message["i"], message["op"]
        except (ValueError, KeyError, TypeError):
            return
        if op == "cancel":
            task = self._tasks.pop(request_id, None)
            if task is not None:
                task.cancel()
            return
        if op == "import":
            return  # reading it was the point: `main` imports litellm at the first line read
        job: Callable[[int, Message], Any] | None = {
            "stream": self._stream, "warm": self._warm, "context_window": self._context_window,
            "supports_vision": self._supports_vision, "web_search": self._web_search,
        }.get(op)
        if job is None:
            self.send({"i": request_id, "fail": [f"unknown request {op!r}", None, "fatal", None]})
            return
        task = self._loop.create_task(job(request_id, message))
        self._tasks[request_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(request_id, None))

    async def _stream(self, request_id: int, message: Message) -> None:
        from valarmind_tui.providers.litellm_call import classify_call_error, completion_events
        from valarmind_tui.providers.stream_watch import Deadlines

        kwargs = message["kwargs"]
        deadlines = Deadlines(*message.get("deadlines") or ())
        try:
            async with aclosing(completion_events(kwargs, deadlines)) as events:
                async for event in events:
                    message = encode(request_id, event)
                    self.send(message, text="d" in message and not message["f"])
                    if self._last_words_first_s and message.get("f") not in NOT_FINAL:
                        await asyncio.sleep(self._last_words_first_s)
        except asyncio.CancelledError:
            return
        except Exception as exc:  # noqa: BLE001 - classified here, raised in the face
            failure = classify_call_error(exc, kwargs.get("api_key"))
            self.send({"i": request_id, "fail": [failure.message, failure.status, failure.kind,
                                                  failure.retry_after_s]})
            return
        else:
            self.send({"i": request_id, "end": 1})
        finally:
            self._loop.call_soon(self._release_when_idle)  # after the last message is written

    def _release_when_idle(self) -> None:
        """With no request running, give back what the last ones freed: each request's
        conversation is decoded here and copied by LiteLLM, and after 30 prompts of ~2,000
        tokens the heap kept ~7 MB more than it held (trimming took 0.1-3 ms)."""
        if all(task.done() for task in self._tasks.values()):
            release_free_memory()

    async def _warm(self, request_id: int, message: Message) -> None:
        from valarmind_tui.providers.warm import warm_request

        # no tokenizer to warm here: this process never loads one (without_token_estimates)
        await warm_request(message.get("model"))
        self.send({"i": request_id, "r": True})

    async def _context_window(self, request_id: int, message: Message) -> None:
        from valarmind_tui.providers.model_info import context_window_here

        self.send({"i": request_id, "r": context_window_here(message.get("model"))})

    async def _web_search(self, request_id: int, message: Message) -> None:
        from valarmind_tui.providers.web_search import answer_to_dict, search_here

        try:
            answer = await search_here(message["kwargs"])
        except Exception as exc:  # noqa: BLE001 - said to the face, which reports it
            self.send({"i": request_id, "fail": [f"{type(exc).__name__}: {exc}"[:500], None,
                                                  "fatal", None]})
            return
        self.send({"i": request_id, "r": answer_to_dict(answer)})

    async def _supports_vision(self, request_id: int, message: Message) -> None:
        from valarmind_tui.providers.model_info import supports_vision_here

        self.send({"i": request_id, "r": supports_vision_here(message.get("model"))})


def without_token_estimates(litellm: Any) -> None:
    """Switch off LiteLLM's own token counting in this process. It counts only to estimate the
    usage and price of a response whose provider reported none, and every stream's first
    chunk loaded a tiktoken encoding for it: 41 MB resident here for as long as the process
    lives, beside the face's own copy (the face measures prompts itself). A stream's usage is
    what the provider reported (litellm_call.py ignores LiteLLM's estimates), priced from the
    cost map, which needs no tokenizer."""
    litellm.disable_token_counter = True


def _read_requests(stdin: IO[bytes], loop: asyncio.AbstractEventLoop,
                   handle: Callable[[bytes | None], None], asked: threading.Event) -> None:
    for line in stdin:
        asked.set()
        loop.call_soon_threadsafe(handle, line)
    asked.set()
    loop.call_soon_threadsafe(handle, None)


IMPORT_AFTER_S = 3.0
"""Unless told to import at once, litellm is imported when the first request comes, or after
this long: the TUI's first model process starts as the face does, and the face, starting on
the other core, asks (its warm-up) once its session is ready. Importing litellm right away
(~1 s of CPU) shared the two cores with the face's start and its terminal: ready for a prompt
456 -> 437 ms with a sleep standing for this (median of 15 launches each, alternated in groups
of five); 519 -> 486 ms with the session's other start-up changes (docs/memory.md). A key
typed before the session is ready asks at once (`Channel.import_soon`): a prompt typed at the
first frame, Enter -> request 1,213-1,252 -> 997-1,102 ms (`e2e_bench`, five pairs)."""


def main(import_at_once: bool = True) -> int:
    out = os.fdopen(int(os.environ.pop("VALARMIND_MODEL_FD")), "wb")
    loop = asyncio.new_event_loop()
    worker = Worker(out, loop, last_words_first_s=LAST_WORDS_FIRST_S)
    asked = threading.Event()
    # requests queue on the loop while litellm imports
    threading.Thread(target=_read_requests, args=(sys.stdin.buffer, loop, worker.handle, asked),
                     name="requests", daemon=True).start()
    if not import_at_once:
        asked.wait(IMPORT_AFTER_S)
    from valarmind_tui.providers.litellm_call import load_litellm

    without_token_estimates(load_litellm())
    worker.send({"ready": 1})
    loop.run_until_complete(worker.done.wait())
    return 0


if __name__ == "__main__":
    from valarmind_tui.core.fast_exit import exit_without_teardown

    # the face waits 0.2 s for this process when it quits, then ends it by a signal: the
    # teardown of everything litellm loaded took longer than that, on every quit of the TUI
    exit_without_teardown(main())
