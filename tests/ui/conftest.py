"""UI fixtures: a real Session whose model is the fake model server, and an app around it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings


@pytest.fixture
def make_session(git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> Callable:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")

    def make(**overrides: Any) -> Session:
        settings = Settings(**{"model": "openai/fake-model", "api_base": fake_model.openai_base,
                               "api_key_env": "FAKE_API_KEY", **overrides})
        return build_session(settings, git_repo)

    return make


@pytest.fixture
def make_app(tmp_path: Path) -> Callable[[Session], ValarMindApp]:
    def make(session: Session) -> ValarMindApp:
        return ValarMindApp(session, history_file=tmp_path / "history.jsonl")

    return make


async def wait_for(pilot: Any, until: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Pause the pilot until `until()` is truthy; fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = until()
        if value:
            return value
        assert loop.time() < deadline, "the UI did not reach the expected state in time"
        await pilot.pause(0.02)


async def screen_shown(pilot: Any, app: Any, kind: type, timeout: float = 10.0) -> Any:
    """The screen of `kind` once it is on top and mounted. Textual sets `is_mounted` only after
    the screen's whole compose tree is mounted; a widget such as `#dialog` is queryable before
    the widgets nested in it are (seen on a loaded machine: `#dialog` there, `#diff` not)."""
    return await wait_for(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted
                          and app.screen, timeout)


async def approval_asked(pilot: Any, app: Any, timeout: float = 10.0) -> Any:
    """The approval screen once it is on top and composed."""
    from valarmind_tui.faces.tui.screens.approval import ApprovalScreen

    return await screen_shown(pilot, app, ApprovalScreen, timeout)

