"""Model streams run on their own event loop, in one daemon thread ("model-io").

LiteLLM and the provider SDK spend about a millisecond of Python on each streamed chunk (parsing,
pydantic objects, its logging): 400 chunks a second at 1,000 tokens/s. On the face's event loop
that work sat between frames and keystrokes, and when the CPU was short the chunks queued up and
were handled in bursts that held the loop for hundreds of milliseconds. On its own loop, the
interpreter hands the face's thread its turn within its switch interval (5 ms) whenever it has
work (a keystroke, a frame). The caller's loop receives the pieces in batches, consecutive text
merged, and is woken once per batch, not once per chunk.
"""

from __future__ import annotations

import asyncio
import threading
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
    caller = asyncio.get_running_loop()
    ready = asyncio.Event()
    pending: list[Any] = []
    lock = threading.Lock()

    def post(item: Any) -> None:
        with lock:
            pending.append(item)
            wake = len(pending) == 1
        if wake:
            caller.call_soon_threadsafe(ready.set)

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
            await ready.wait()
            with lock:
                batch = pending[:]
                pending.clear()
                ready.clear()
            for item in merge_text(batch):
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
    finally:
        if not future.done():
            future.cancel()


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
