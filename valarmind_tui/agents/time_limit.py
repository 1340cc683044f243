"""An agent run under a time limit that stops while a person reads an approval.

The delegator bounds every specialist with it, the orchestrator its own run: the ApprovalClock
does not run while an approval is pending, the agent's maximum (wall time) always does. A
prompt's time budget (`--max-time`, a goal's) bounds the whole run in wall time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import replace

from valarmind_tui.agents.approval_clock import ApprovalClock
from valarmind_tui.agents.loop import AgentOutcome
from valarmind_tui.agents.timeout import TIMEOUT
from valarmind_tui.core.events import RunStatus
from valarmind_tui.providers.base import Usage
from valarmind_tui.spending.meter import Spending


async def bounded(
    coro: Awaitable[AgentOutcome], limit: float, clock: ApprovalClock | None = None,
    wall_limit: float | None = None, *, keep_partial_on_cancel: bool = False,
) -> tuple[AgentOutcome, bool]:
    """Run an agent loop with a time limit: (outcome, timed_out). The `clock` does not run while
    an approval is pending, but `wall_limit` (the agent's maximum) always does. On timeout the
    loop is cancelled with TIMEOUT (its open call ends `timeout`, a pending approval is denied)
    and its partial outcome returned; a cancelled caller cancels the loop too, and with
    `keep_partial_on_cancel` gets the loop's own cancelled outcome (its partial answer) back
    instead of the CancelledError, as when the loop runs in the caller's task."""
    task = asyncio.ensure_future(coro)
    base = clock.elapsed() if clock is not None else 0.0
    wall_start = time.monotonic()
    try:
        while True:
            if clock is None:
                done, _ = await asyncio.wait({task}, timeout=limit)
                break
            remaining = clock.remaining(limit, base)
            if wall_limit is not None:
                wall = wall_limit - (time.monotonic() - wall_start)
                remaining = wall if remaining is None else min(remaining, wall)
            if remaining is not None and remaining <= 0:
                done = set()
                break
            done = await clock.wait(task, remaining)
            if task in done:
                break
    except asyncio.CancelledError as exc:
        task.cancel(*exc.args[:1])  # a parent's timeout reaches the child as a timeout
        await asyncio.wait({task})
        current = asyncio.current_task()
        if (keep_partial_on_cancel and current is not None and not task.cancelled()
                and task.exception() is None):
            current.uncancel()
            return task.result(), False
        raise
    if task in done:
        return task.result(), False
    task.cancel(TIMEOUT)
    await asyncio.wait({task})
    if task.cancelled():
        return AgentOutcome(RunStatus.CANCELLED, "", [], 0, Usage()), True
    return task.result(), True


async def within_time_budget(spending: Spending, run: Awaitable[AgentOutcome]) -> AgentOutcome:
    """The run, stopped when a time budget is spent, even in the middle of a tool call (its
    command is stopped); the other budgets stop a run before its next model call."""
    left = spending.time_left()
    if left is None:
        return await run
    outcome, timed_out = await bounded(run, max(left, 0.0), keep_partial_on_cancel=True)
    stop = spending.check() if timed_out else None
    if stop is None:
        return outcome
    message = stop.message()
    text = f"## BUDGET\n\n{message}" + (f"\n\n{outcome.text}" if outcome.text else "")
    return replace(outcome, status=RunStatus.BUDGET, text=text, error=message)
