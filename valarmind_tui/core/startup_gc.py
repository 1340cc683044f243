"""No garbage collection while a headless run starts (`-p`, `run`).

A run's start allocates ~50,000 objects that live until it exits (modules, classes, pydantic
schemas, the session): the collector ran ~130 times over them, walking the growing heap again
each time, ~37 ms of a warm `valarmind -p` (of ~340 ms of CPU). So the start runs with the
collector off; once the session is built, everything alive is frozen (out of the collector's
sight, as `faces/tui/garbage.py` does for the TUI) and collection resumes for the turn.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """The start begins: no collection until `resume`."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """The start is over (idempotent): what lives now is frozen, collection runs again."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
