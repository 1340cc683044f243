"""Model streams run on their own event loop, in one daemon thread ("model-io").

LiteLLM and the provider SDK spend about a millisecond of Python on each streamed chunk (parsing,
pydantic objects, its logging): 400 chunks a second at 1,000 tokens/s. On the face's event loop
that work sat between frames and keystrokes, and when the CPU was short the chunks queued up and
were handled in bursts that held the loop for hundreds of milliseconds. On its own loop, the
interpreter hands the face's thread its turn within its switch interval (5 ms) whenever it has
work (a keystroke, a frame). The caller's loop receives the pieces in batches, consecutive text
merged, and is woken at most every BATCH_S for text (at once for anything else).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any, TypeVar

from valarmind_tui.providers.base import ReasoningPiece, TextPiece

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def io_loop() -> asyncio.AbstractEventLoop:
    """The model-io thread's event loop, started on first use and kept for the process (LiteLLM
    caches its HTTP clients per loop, so connections are reused across requests)."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="model-io", daemon=True).start()
            _loop = loop
        return _loop


class _End:
    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


async def in_io_thread(source: Callable[[], AsyncGenerator[T, None]]) -> AsyncGenerator[T, None]:
    """Iterate `source()` on the model-io loop and yield its items here, in order. Closing or
    cancelling this iterator cancels the source (and so the request)."""
    inbox = Inbox(asyncio.get_running_loop())

    def post(item: Any) -> None:
        inbox.post(item, urgent=not isinstance(item, TextPiece | ReasoningPiece))

    async def pump() -> None:
        try:
            async with aclosing(source()) as items:
                async for item in items:
                    post(item)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
            post(_End(exc))
            return
        post(_End())

    future = asyncio.run_coroutine_threadsafe(pump(), io_loop())
    try:
        while True:
            batch = await inbox.take()
            for item in merge_text(batch):
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
    finally:
        if not future.done():
            future.cancel()


BATCH_S = 0.02
"""A stream's text reaches the caller's loop at most this often: at 1,000 tokens/s every chunk
was an event of its own (a wake-up, a bus event, a row in the session store: ~400 a second)."""


class Inbox:
    """Items from another thread to one stream on the caller's loop, in batches. The loop is
    woken at once for the first text and for anything `urgent` (a finish, the end, an error),
    else at most every BATCH_S."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._ready = asyncio.Event()
        self._lock = threading.Lock()
        self._pending: list[Any] = []
        self._wake_coming = False
        self._last_take = 0.0

    def post(self, item: Any, *, urgent: bool) -> None:
        """From any thread."""
        with self._lock:
            self._pending.append(item)
            if self._wake_coming and not urgent:
                return
            self._wake_coming = True
            delay = 0.0 if urgent else self._last_take + BATCH_S - time.monotonic()
        if delay <= 0:
            self._loop.call_soon_threadsafe(self._ready.set)
        else:
            self._loop.call_soon_threadsafe(self._loop.call_later, delay, self._ready.set)

    async def take(self) -> list[Any]:
        """What came since the last take (possibly nothing), once woken."""
        await self._ready.wait()
        with self._lock:
            batch, self._pending = self._pending, []
            self._ready.clear()
            self._wake_coming = False
            self._last_take = time.monotonic()
        return batch


def merge_text(batch: list[Any]) -> list[Any]:
    """Consecutive text (or reasoning) pieces become one piece; everything else keeps its place."""
    merged: list[Any] = []
    for item in batch:
        last = merged[-1] if merged else None
        if isinstance(item, TextPiece | ReasoningPiece) and isinstance(last, type(item)):
            merged[-1] = type(item)(last.text + item.text)
        else:
            merged.append(item)
    return merged
