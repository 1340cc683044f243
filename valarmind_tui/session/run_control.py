"""Which prompt runs in a session, and who holds it: one prompt at a time, the messages typed
meanwhile (steering), a holder across several prompts (a goal), and stopping whichever runs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from valarmind_tui.agents.steering import SteeringQueue
from valarmind_tui.core.bus import EventBus

_HOLDER: ContextVar[bool] = ContextVar("valarmind_session_holder", default=False)
"""True in the task that holds the session (`RunControl.hold`): its own prompts are let through."""

Result = TypeVar("Result")


class RunControl:
    """The running prompt's task and steering queue, and the holder's stop."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self._running: asyncio.Task[Any] | None = None
        self._steering: SteeringQueue | None = None
        """The running prompt's messages typed meanwhile (`steer`)."""
        self._held: Callable[[], None] | None = None
        """Set while a command holds the session across prompts (a goal): how to stop it."""

    @property
    def busy(self) -> bool:
        return self.prompt_running or self._held is not None

    @property
    def prompt_running(self) -> bool:
        return self._running is not None and not self._running.done()

    def refuses_a_prompt(self) -> bool:
        """True while a prompt runs, or another task holds the session."""
        return self.prompt_running or (self._held is not None and not _HOLDER.get())

    @contextlib.contextmanager
    def hold(self, stop: Callable[[], None]) -> Iterator[None]:
        """Meanwhile the session is busy to everyone else, its holder's own prompts run, and
        `cancel` calls `stop` when no prompt is running."""
        self._held = stop
        token = _HOLDER.set(True)
        try:
            yield
        finally:
            _HOLDER.reset(token)
            self._held = None

    async def run(
        self, prompt: Callable[[SteeringQueue], Coroutine[Any, Any, Result]],
    ) -> Result:
        """Run one prompt to its end with a fresh steering queue; cancelling the caller
        cancels it."""
        steering = self._steering = SteeringQueue(self.bus)
        task = asyncio.create_task(prompt(steering))
        self._running = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self._running = None
            steering.close()

    def steer(self, text: str) -> bool:
        """A message typed while a prompt runs: queued, and delivered to the main agent at its
        next model request (agents/steering.py). False when no prompt runs."""
        steering = self._steering
        return self.busy and steering is not None and steering.put(text) is not None

    def cancel(self) -> bool:
        """Stop the running prompt, else the holder; False when neither runs."""
        if self._running is not None and self.prompt_running:
            self._running.cancel()
            return True
        if self._held is not None:
            self._held()
            return True
        return False
