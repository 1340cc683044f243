"""When Python's garbage collector may run, for a UI that must not pause.

A full collection walks every live object. litellm alone brings ~270,000 of them and a long
conversation's widgets many more: each full collection paused the UI for 100-350 ms, in the
middle of a stream too. So the app freezes what lives (moves it out of the collector's sight)
at calm moments: after the model library is imported (no collection runs during that import),
at each main-agent turn and every SETTLE_EVERY_S while the agent works (after collecting the
young generations, a few ms), and when a prompt finishes. Full collections then walk only what
is new.
A frozen object that later dies in a reference cycle is only reclaimed by a full collection, so
one runs when a prompt finishes and the frozen set has grown by a quarter since the last one
(CPython's own rule for its oldest generation), and on /clear.

Python's thresholds stay as they are: raising the third made full collections rarer but each
one had more of Textual's cyclic garbage (Strips and their caches) to free: 300-430 ms.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (700, 10, 10)
"""Automatic full collections ten times rarer than Python's default (700, 10, 10)."""
FULL_AFTER_GROWTH = 1.25
SETTLE_EVERY_S = 2.0

_frozen_after_full = 0
_imports_uncounted = False
"""Imports were frozen since the frozen set was last counted: the next settle counts them."""


def tune() -> None:
    gc.set_threshold(*THRESHOLDS)


def freeze() -> None:
    """Everything alive now is here to stay (the imported modules)."""
    gc.freeze()


@contextmanager
def imports_then_freeze() -> Iterator[None]:
    """No collection while a big library imports (it would walk the half-built heap again and
    again); afterwards everything imported is frozen."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        freeze()
        # What was imported is here to stay: the next settle counts it into the baseline the
        # frozen set grows from (with 0 there, the first prompt's end ran a full collection of
        # litellm's whole heap: 0.3-3 s with the UI frozen, benchmarks/e2e_bench.py). Not
        # counted here: counting walks every frozen object, ~8 ms holding the interpreter lock,
        # and the session's build ends here on the way to the first prompt.
        global _imports_uncounted
        _imports_uncounted = True


def settle_turn() -> None:
    """A main-agent turn starts: collect the young generations, freeze the rest."""
    gc.collect(1)
    gc.freeze()


def settle_idle(force: bool = False) -> None:
    """A prompt finished (the person reads) or the chat was cleared (`force`)."""
    global _frozen_after_full, _imports_uncounted
    if not force:
        frozen = gc.get_freeze_count()
        if _imports_uncounted:  # imports are not growth
            _frozen_after_full = max(_frozen_after_full, frozen)
            _imports_uncounted = False
        if frozen < _frozen_after_full * FULL_AFTER_GROWTH:
            settle_turn()
            return
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _frozen_after_full = gc.get_freeze_count()
    _imports_uncounted = False
