"""A headless run builds its session with the garbage collector paused, then freezes what
lives and collects again for the turn (core/startup_gc.py); whatever happens, main() leaves it
on."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.cli.main import main
from valarmind_tui.core import startup_gc
from valarmind_tui.session.session import Session


@pytest.fixture(autouse=True)
def collector_back_on() -> Iterator[None]:
    yield
    gc.enable()


def test_the_turn_runs_with_the_collector_on_and_the_start_frozen(
        git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    start = Session.start

    async def watched(self: Session) -> None:
        seen["enabled"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()
        await start(self)

    monkeypatch.setattr(Session, "start", watched)
    monkeypatch.chdir(git_repo)
    gc.unfreeze()
    assert main(["-p", "/help"]) == 0
    assert seen["enabled"] is True
    assert seen["frozen"] > 0  # the modules and the session, out of the collector's sight


def test_a_run_that_fails_before_its_session_leaves_the_collector_on(
        git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(git_repo)
    assert main(["-p", "say hi"]) == 2  # no model configured: a usage error
    assert gc.isenabled()


def test_resume_leaves_a_collector_someone_else_turned_off_alone() -> None:
    gc.disable()
    startup_gc.pause()
    startup_gc.resume()
    assert not gc.isenabled()
