"""Telling a time limit's cancel from a person's: a time limit cancels an agent's task with
`task.cancel(TIMEOUT)`, so its open call and partial answer say "timeout", not "cancelled by
the user"."""

from __future__ import annotations

import asyncio

TIMEOUT = "timeout"


def is_timeout(exc: asyncio.CancelledError) -> bool:
    """True when a time limit cancelled the task (`task.cancel(TIMEOUT)`), not a person."""
    return bool(exc.args) and exc.args[0] == TIMEOUT
