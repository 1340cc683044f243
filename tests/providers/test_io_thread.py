"""Model streams are iterated on the model-io thread's loop; the caller gets the same pieces in
order, the same errors, and stopping early stops the source."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator

import pytest

from valarmind_tui.providers.base import ReasoningPiece, TextPiece, TurnComplete
from valarmind_tui.providers.io_thread import BATCH_S, in_io_thread, merge_text


async def test_pieces_arrive_in_order_from_the_model_io_thread() -> None:
    threads: set[str] = set()

    async def source() -> AsyncIterator[object]:
        for n in range(200):
            threads.add(threading.current_thread().name)
            yield TextPiece(f"{n},")
            if n % 50 == 0:
                yield ReasoningPiece("r")
                await asyncio.sleep(0.001)

    got = [piece async for piece in in_io_thread(source)]
    text = "".join(p.text for p in got if isinstance(p, TextPiece))
    assert text == "".join(f"{n}," for n in range(200))
    assert sum(p.text == "r" for p in got if isinstance(p, ReasoningPiece)) == 4
    assert threads == {"model-io"}


async def test_an_error_in_the_stream_is_raised_to_the_caller_after_what_came_before() -> None:
    async def source() -> AsyncIterator[object]:
        yield TextPiece("partial")
        await asyncio.sleep(0)
        raise ConnectionResetError("the server went away")

    got: list[object] = []
    with pytest.raises(ConnectionResetError, match="went away"):
        async for piece in in_io_thread(source):
            got.append(piece)
    assert got == [TextPiece("partial")]


async def test_cancelling_the_caller_closes_the_source() -> None:
    closed = threading.Event()
    started = asyncio.Event()
    caller = asyncio.get_running_loop()

    async def source() -> AsyncIterator[object]:
        try:
            caller.call_soon_threadsafe(started.set)
            while True:
                yield TextPiece("x")
                await asyncio.sleep(0.01)
        finally:
            closed.set()

    async def consume() -> None:
        async for _ in in_io_thread(source):
            pass

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(closed.wait, 5)


def test_merge_text_joins_runs_of_the_same_kind_only() -> None:
    done = TurnComplete.__new__(TurnComplete)
    merged = merge_text([TextPiece("a"), TextPiece("b"), ReasoningPiece("c"), TextPiece("d"),
                         done, TextPiece("e")])
    assert merged == [TextPiece("ab"), ReasoningPiece("c"), TextPiece("d"), done, TextPiece("e")]


async def test_a_fast_stream_reaches_the_caller_in_batches_not_piece_by_piece() -> None:
    async def source() -> AsyncIterator[object]:
        for n in range(150):  # a piece every 2 ms for 0.3 s (longer on a loaded machine)
            yield TextPiece(f"{n},")
            await asyncio.sleep(0.002)

    started = time.monotonic()
    got = [piece async for piece in in_io_thread(source)]
    took = time.monotonic() - started
    assert "".join(p.text for p in got if isinstance(p, TextPiece)) == "".join(
        f"{n}," for n in range(150))
    # a merged batch at most every BATCH_S however long the stream took, the first at once and
    # the last with the end: not 150 wake-ups
    assert len(got) <= took / BATCH_S + 2, (len(got), took)
