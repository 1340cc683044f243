"""Steering: messages the person types while the main agent works.

`Session.steer` queues one; the main agent's loop delivers every queued message at its next
model request, as user messages after that step's tool results (an answer without tool calls
does not end the run while one waits). What the run ends without delivering is dropped and
said, so a face can give the text back. Each step is a `SteeringChanged` event.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Literal

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import SteeringChanged

_ids = itertools.count(1)


class SteeringQueue:
    """One prompt's queue of steering messages, in the order they were typed."""

    def __init__(self, bus: EventBus, agent_id: str = "main") -> None:
        self._bus = bus
        self._agent_id = agent_id
        self._waiting: list[tuple[str, str]] = []
        self.closed = False
        """True once the run ended: nothing more is taken."""

    @property
    def pending(self) -> bool:
        return bool(self._waiting)

    def put(self, text: str) -> str | None:
        """Queue `text`; its id, or None when the run already ended."""
        if self.closed:
            return None
        message_id = f"steer-{next(_ids)}"
        self._waiting.append((message_id, text))
        self._publish(message_id, text, "queued")
        return message_id

    def deliver(self, append: Callable[[str], None]) -> None:
        """Hand every waiting message to `append` (the loop's history), oldest first."""
        waiting, self._waiting = self._waiting, []
        for message_id, text in waiting:
            append(text)
            self._publish(message_id, text, "delivered")

    def close(self) -> list[str]:
        """The run ended: what was never delivered, each said as dropped."""
        self.closed = True
        waiting, self._waiting = self._waiting, []
        for message_id, text in waiting:
            self._publish(message_id, text, "dropped")
        return [text for _, text in waiting]

    def _publish(self, message_id: str, text: str,
                 state: Literal["queued", "delivered", "dropped"]) -> None:
        self._bus.publish(SteeringChanged(agent_id=self._agent_id, message_id=message_id,
                                          text=text, state=state))
