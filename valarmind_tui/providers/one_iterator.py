"""One iterator for a provider stream that LiteLLM iterates chunk by chunk.

LiteLLM's `CustomStreamWrapper.__anext__` runs `async for chunk in self.completion_stream:` and
returns from inside it, once per chunk. The OpenAI SDK's `AsyncStream.__aiter__` is an async
generator, so every chunk made a new generator that was dropped half-way; the event loop's
finalizer hook then woke the loop through its self-pipe and ran a task to close it. That was
most of the model-io thread's time at 400 chunks/s (py-spy: 58% of its samples in
`_write_to_self`), each wake-up a system call that let go of the GIL and had to win it back from
the UI thread. Behind `OneIterator`, every `async for` continues the same iterator.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from typing import Any


class OneIterator:
    """`stream` whose `__aiter__` always gives the same iterator; other attributes pass
    through."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._iterator: AsyncIterator[Any] | None = None

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._iterator is None:
            self._iterator = aiter(self._stream)
        return self._iterator

    async def aclose(self) -> None:
        """Close the iterator, then the stream (its HTTP response)."""
        iterator, self._iterator = self._iterator, None
        closer = getattr(iterator, "aclose", None)
        if closer is not None and iterator is not self._stream:
            await closer()
        for name in ("aclose", "close"):
            method = getattr(self._stream, name, None)
            if method is not None:
                result = method()
                if inspect.isawaitable(result):
                    await result
                return

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def keep_one_iterator(response: Any) -> None:
    """Give LiteLLM's streaming `response` one iterator over its provider stream, when that
    stream's `__aiter__` makes a new generator each time (the OpenAI SDK's does)."""
    stream = getattr(response, "completion_stream", None)
    if inspect.isasyncgenfunction(getattr(type(stream), "__aiter__", None)):
        response.completion_stream = OneIterator(stream)
