"""The TUI with a screenshot: `@shot.png` is sent as an image (not refused as a binary
attachment) and the chat shows its line with name, size and dimensions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.media.helpers import openai_images, write_png
from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings


async def test_a_mentioned_screenshot_is_sent_and_its_line_shown(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    write_png(git_repo / "shot.png", (1920, 1080))
    fake_model.script(ScriptedTurn(text="A green screen."))
    session = build_session(Settings(model="openai/gpt-4o", api_base=fake_model.openai_base,
                                     api_key_env="FAKE_API_KEY"), git_repo)
    app = ValarMindApp(session, history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"what is in @shot.png", "enter")
        await wait_for(pilot, lambda: [m for m in app.query(AssistantMessage)
                                       if m.status == "done"])
        lines = [str(n.render()) for n in app.query(NoticeLine)]
        toasts = [n.message for n in app._notifications]  # Textual keeps no public list
    assert not any("not attached" in toast for toast in toasts), toasts
    assert any(line.startswith("image shot.png (") and "1920×1080, sent as 1568×882" in line
               for line in lines), lines
    assert [i.size for i in openai_images(fake_model.requests[0])] == [(1568, 882)]
