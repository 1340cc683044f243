"""The UI's garbage-collection policy: young garbage goes at each turn, and what died while
frozen is reclaimed by the next full settle."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from valarmind_tui.ui import garbage


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector can free it


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_a_turn_collects_young_garbage_before_freezing() -> None:
    dead = Node()
    gone = weakref.ref(dead)
    del dead
    garbage.settle_turn()
    assert gone() is None and gc.get_freeze_count() > 0


def test_what_dies_while_frozen_is_reclaimed_by_a_forced_settle() -> None:
    garbage.settle_idle(force=True)
    node = Node()
    frozen = weakref.ref(node)
    garbage.settle_turn()  # frozen while alive
    del node
    gc.collect()
    assert frozen() is not None  # out of the collector's sight
    garbage.settle_idle()  # little growth since the last full settle: no full collection
    assert frozen() is not None
    garbage.settle_idle(force=True)  # /clear
    assert frozen() is None


def test_a_finished_prompt_runs_a_full_settle_once_the_frozen_set_grew() -> None:
    garbage.settle_idle(force=True)
    node = Node()
    frozen = weakref.ref(node)
    garbage.settle_turn()
    del node
    grown = [[i] for i in range(gc.get_freeze_count() // 3)]  # a quarter more live objects
    garbage.settle_turn()
    garbage.settle_idle()
    assert frozen() is None and len(grown) > 0


def test_the_first_finished_prompt_does_not_walk_what_the_warm_up_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model library's objects, frozen after its import, are not garbage: the first prompt's
    end collects the young generations only (a full collection paused the UI for 0.3-3 s)."""
    gc.unfreeze()
    monkeypatch.setattr(garbage, "_frozen_after_full", 0)  # a fresh process
    with garbage.imports_then_freeze():
        imported = [[i] for i in range(50_000)]  # stands for litellm's heap
    generations: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        garbage.settle_idle()
    finally:
        gc.callbacks.remove(seen)
    assert generations and max(generations) < 2
    assert gc.get_freeze_count() >= len(imported)
