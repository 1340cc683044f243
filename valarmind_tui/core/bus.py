"""An asyncio broadcast bus: every subscriber sees every event, in order.

`publish` never awaits: each subscriber has its own unbounded queue, so a slow subscriber falls
behind on its own and never blocks the agent that publishes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from valarmind_tui.core.events import Event


class _Closed:
    """What `close` queues: the iteration ends there."""


_CLOSED = _Closed()


class Subscription:
    """One subscriber's view of the bus; iterate it with `async for`."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._queue: asyncio.Queue[Event | _Closed] = asyncio.Queue()

    def _put(self, item: Event) -> None:
        self._queue.put_nowait(item)

    def close(self) -> None:
        """Stop receiving; a pending iteration ends."""
        self._bus._unsubscribe(self)
        self._queue.put_nowait(_CLOSED)

    def get_nowait(self) -> Event | None:
        """The next queued event, or None."""
        try:
            item = self._queue.get_nowait()
        except asyncio.QueueEmpty:
            return None
        return None if isinstance(item, _Closed) else item

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Event]:
        while True:
            item = await self._queue.get()
            if isinstance(item, _Closed):
                return
            yield item


class EventBus:
    """Broadcasts events to queue subscribers and synchronous listeners."""

    def __init__(self) -> None:
        self._subscriptions: list[Subscription] = []
        self._listeners: list[Callable[[Event], None]] = []

    def subscribe(self) -> Subscription:
        """A new queue that receives every event published from now on."""
        sub = Subscription(self)
        self._subscriptions.append(sub)
        return sub

    def add_listener(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call `listener` synchronously on publish (must be fast); returns a remover."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _unsubscribe(self, sub: Subscription) -> None:
        if sub in self._subscriptions:
            self._subscriptions.remove(sub)

    def publish(self, event: Event) -> None:
        """Deliver `event` to everyone; never blocks."""
        for listener in list(self._listeners):
            listener(event)
        for sub in list(self._subscriptions):
            sub._put(event)

    def close(self) -> None:
        """End every subscriber's iteration."""
        for sub in list(self._subscriptions):
            sub.close()
