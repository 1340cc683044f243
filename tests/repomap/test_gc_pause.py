"""A map is built with the cyclic garbage collector off (it walked the whole growing map on
every automatic collection), and the collector is on again afterwards, also when builds overlap
in two threads; one turned off by someone else stays off."""

from __future__ import annotations

import gc
import threading

from valarmind_tui.repomap.gc_pause import gc_paused


def test_overlapping_builds_keep_it_off_until_the_last_ends() -> None:
    assert gc.isenabled()
    first_in, second_out, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with gc_paused():
            first_in.set()
            second_out.wait(10)
            seen.append(gc.isenabled())  # the other build ended: still off for this one
        first_out.set()

    worker = threading.Thread(target=first)
    worker.start()
    first_in.wait(10)
    with gc_paused():
        seen.append(gc.isenabled())
    second_out.set()
    first_out.wait(10)
    worker.join(10)
    assert seen == [False, False] and gc.isenabled()


def test_an_exception_turns_it_back_on_and_someone_elses_off_is_kept() -> None:
    try:
        with gc_paused():
            raise RuntimeError("a build failed")
    except RuntimeError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_build_waiting_for_its_child_hands_the_collector_back() -> None:
    from valarmind_tui.repomap.gc_pause import gc_resumed

    with gc_paused():
        with gc_resumed():
            assert gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with gc_resumed():  # no pause held: nothing to hand back
        assert gc.isenabled()
