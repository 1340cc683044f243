"""A specialist's clock that stops while one of its calls waits for a person's approval.

It watches the bus: ApprovalRequested by the agent (or an agent it spawned) stops the clock,
the matching ApprovalResolved starts it again. The Delegator's time limit reads `remaining`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import AgentSpawned, ApprovalRequested, ApprovalResolved, Event


class ApprovalClock:
    """Elapsed time of one agent tree, without the time approvals were pending."""

    def __init__(self, bus: EventBus, agent_id: str) -> None:
        self.family = {agent_id}
        self.pending: set[str] = set()
        self.paused_s = 0.0
        self._paused_at: float | None = None
        self._started = time.monotonic()
        self._changed = asyncio.Event()
        self._remove = bus.add_listener(self._on_event)

    def close(self) -> None:
        self._remove()

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def elapsed(self) -> float:
        """Seconds since the clock started, without the time approvals were pending."""
        now = time.monotonic()
        paused = self.paused_s + (now - self._paused_at if self._paused_at is not None else 0)
        return max(0.0, now - self._started - paused)

    def remaining(self, limit: float, base: float) -> float | None:
        """Seconds left of `limit` counted from `base` (an earlier `elapsed()`); None while
        paused: no deadline runs then."""
        if self.paused:
            return None
        return limit - (self.elapsed() - base)

    async def wait(self, task: asyncio.Future[Any], timeout: float | None) -> set[Any]:
        """Wait for `task`, for `timeout`, or until the clock stops or starts again."""
        self._changed.clear()
        changed = asyncio.ensure_future(self._changed.wait())
        try:
            done, _ = await asyncio.wait({task, changed}, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            changed.cancel()
        return done

    def _on_event(self, event: Event) -> None:
        match event:
            case AgentSpawned() if event.parent_id in self.family:
                self.family.add(event.agent_id)
            case ApprovalRequested() if event.agent_id in self.family:
                if not self.pending:
                    self._paused_at = time.monotonic()
                self.pending.add(event.request_id)
                self._changed.set()
            case ApprovalResolved() if event.request_id in self.pending:
                self.pending.discard(event.request_id)
                if not self.pending and self._paused_at is not None:
                    self.paused_s += time.monotonic() - self._paused_at
                    self._paused_at = None
                self._changed.set()
            case _:
                pass  # the clock stops for this family's approvals only
