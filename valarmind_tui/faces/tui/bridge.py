"""From the core's EventBus to Textual messages: the UI's only inbound path.

Text arrives a few characters at a time (1,000 tokens/s is normal); posting one message per
piece would keep the UI busy dispatching. The pump drains whatever is queued and merges
consecutive text (or reasoning) pieces of one agent into one event, so the UI's work follows
its own frame rate, not the model's token rate. Order is kept. Every text an event carries is
made visible here (`visible_fields`): no control character from outside reaches the screen.
"""

from __future__ import annotations

import dataclasses

from textual.message import Message

from valarmind_tui.core.bus import EventBus, Subscription
from valarmind_tui.core.events import Event, ReasoningDelta, TextDelta
from valarmind_tui.safety.visible_fields import visible_fields

MAX_BATCH = 2000
"""Events merged per wake-up at most (keeps one burst from starving the keyboard)."""


class SessionEvent(Message):
    """One bus event, delivered through the app's message queue (so in publish order)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


def coalesce(events: list[Event]) -> list[Event]:
    """Merge runs of TextDelta (or ReasoningDelta) from the same agent; keep everything else."""
    merged: list[Event] = []
    for event in events:
        match merged[-1] if merged else None, event:
            case ((TextDelta() as last, TextDelta() as piece)
                  | (ReasoningDelta() as last, ReasoningDelta() as piece)) if (
                    last.agent_id == piece.agent_id):
                merged[-1] = dataclasses.replace(last, text=last.text + piece.text, at=piece.at)
            case _:  # every other event passes as it is
                merged.append(event)
    return merged


def drain(first: Event, subscription: Subscription) -> list[Event]:
    """`first` plus whatever else is already queued (bounded)."""
    batch = [first]
    while len(batch) < MAX_BATCH:
        event = subscription.get_nowait()
        if event is None:
            break
        batch.append(event)
    return batch


async def pump_events(bus: EventBus, target: object) -> None:
    """Post every event of `bus` to `target` (an App or widget) until the bus closes."""
    subscription = bus.subscribe()
    try:
        async for event in subscription:
            for merged in coalesce(drain(event, subscription)):
                shown = visible_fields(merged)  # outside text's controls shown, never emitted
                # why the ignore below: target is an App or a widget; both have post_message
                target.post_message(SessionEvent(shown))  # type: ignore[attr-defined]  # why: above
    finally:
        subscription.close()
