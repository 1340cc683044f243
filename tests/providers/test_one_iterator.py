"""A provider stream is read through one iterator, not a new generator per chunk."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers.base import ModelRequest, TurnComplete
from valarmind_tui.providers.io_thread import io_loop
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.providers.one_iterator import keep_one_iterator


class SdkLikeStream:
    """Like the OpenAI SDK's AsyncStream: `__aiter__` is a generator over one inner iterator."""

    def __init__(self, items: list[int]) -> None:
        self.generators = 0
        self.closed = False
        self._inner = self._produce(items)

    async def _produce(self, items: list[int]) -> AsyncIterator[int]:
        for item in items:
            yield item

    async def __aiter__(self) -> AsyncIterator[int]:
        self.generators += 1
        async for item in self._inner:
            yield item

    async def close(self) -> None:
        self.closed = True


class WrapperLikeLiteLLM:
    """Reads `completion_stream` the way LiteLLM's CustomStreamWrapper does: one `async for`
    per chunk, returning from inside it."""

    def __init__(self, stream: Any) -> None:
        self.completion_stream = stream

    async def next_chunk(self) -> int:
        async for chunk in self.completion_stream:
            return int(chunk)
        raise StopAsyncIteration


async def test_chunk_by_chunk_reading_gets_every_item_once_through_one_generator() -> None:
    stream = SdkLikeStream(list(range(100)))
    response = WrapperLikeLiteLLM(stream)
    keep_one_iterator(response)
    got = []
    while True:
        try:
            got.append(await response.next_chunk())
        except StopAsyncIteration:
            break
    assert got == list(range(100))
    assert stream.generators == 1
    await response.completion_stream.aclose()
    assert stream.closed


async def test_a_stream_that_is_its_own_iterator_is_left_alone() -> None:
    async def own() -> AsyncIterator[int]:
        yield 1

    response = WrapperLikeLiteLLM(own())
    original = response.completion_stream
    keep_one_iterator(response)
    assert response.completion_stream is original
    assert await response.next_chunk() == 1


async def test_a_long_stream_through_litellm_starts_few_generators_on_the_model_io_thread(
        fake_model: FakeModelServer) -> None:
    """Each dropped generator costs a wake-up of the model-io loop and a task to close it."""
    text = "".join(f"w{n:03d} " for n in range(600))
    fake_model.script(ScriptedTurn(text=text, chunk_size=5))
    provider = LiteLLMProvider(ProviderConfig(
        model="openai/fake-model", api_base=fake_model.openai_base, api_key="sk-test"))
    await _collect(provider, "warm")  # the first request's imports start generators of their own
    fake_model.script(ScriptedTurn(text=text, chunk_size=5))
    started = await _count_generators_during(_collect(provider, "count"))
    assert started < 100, f"{started} async generators started for 600 chunks"


async def _collect(provider: LiteLLMProvider, prompt: str) -> str:
    pieces = [p async for p in provider.stream(
        ModelRequest(messages=[{"role": "user", "content": prompt}]))]
    assert isinstance(pieces[-1], TurnComplete)
    return pieces[-1].turn.text


async def _count_generators_during(work: Any) -> int:
    """Async generators first iterated on the model-io thread while `work` runs."""
    loop, counted = io_loop(), [0]

    def install() -> tuple[Any, Any]:
        first, final = sys.get_asyncgen_hooks()

        def counting(agen: Any) -> None:
            counted[0] += 1
            if first is not None:
                first(agen)

        sys.set_asyncgen_hooks(firstiter=counting, finalizer=final)
        return first, final

    async def on_loop(fn: Any, *args: Any) -> Any:
        return fn(*args)

    previous = await asyncio.wrap_future(
        asyncio.run_coroutine_threadsafe(on_loop(install), loop))
    try:
        await work
    finally:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
            on_loop(lambda: sys.set_asyncgen_hooks(*previous)), loop))
    return counted[0]
