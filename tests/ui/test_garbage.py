"""The UI's garbage-collection policy: young garbage goes at each turn, and what died while
frozen is reclaimed by the next full settle."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from valarmind_tui.faces.tui import garbage


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
    monkeypatch.setattr(garbage, "_imports_uncounted", False)
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


async def test_no_full_collection_pauses_a_prompt_sent_right_after_the_last_one(
        make_session, make_app, fake_model, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """The full settle waits half a second after a prompt ends, for the person to read; when
    the next prompt already streams by then, it is left to that prompt's end."""
    from tests.fakes.model_server import ScriptedTurn
    from tests.ui.conftest import wait_for
    from valarmind_tui.faces.tui.widgets.answer import AssistantMessage

    full: list[bool] = []
    monkeypatch.setattr(garbage, "settle_idle", lambda force=False: full.append(force))
    fake_model.script(ScriptedTurn(text="first"),
                      ScriptedTurn(text="second " * 40, chunk_delay_s=0.03, chunk_size=4))
    app = make_app(make_session())

    def answers() -> list[AssistantMessage]:
        return [m for m in app.query(AssistantMessage) if m.status == "done"]

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"one", "enter")
        await wait_for(pilot, lambda: len(answers()) == 1 and not app.working)
        await pilot.press(*"two", "enter")
        await wait_for(pilot, lambda: app.working)
        await pilot.pause(1.0)  # the first prompt's timer fires while the second streams
        assert full == []
        await wait_for(pilot, lambda: len(answers()) == 2 and not app.working, timeout=20)
        await pilot.pause(0.8)
    assert full == [False]  # the second prompt's end ran it
