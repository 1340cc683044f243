"""From the core's EventBus to Textual messages: the UI's only inbound path."""

from __future__ import annotations

from textual.message import Message

from valarmind_tui.bus import EventBus
from valarmind_tui.events import Event


class SessionEvent(Message):
    """One bus event, delivered through the app's message queue (so in publish order)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


async def pump_events(bus: EventBus, target: object) -> None:
    """Post every event of `bus` to `target` (an App or widget) until the bus closes."""
    subscription = bus.subscribe()
    try:
        async for event in subscription:
            target.post_message(SessionEvent(event))  # type: ignore[attr-defined]
    finally:
        subscription.close()
