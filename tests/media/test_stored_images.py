"""Images are stored once by hash, re-sent after --resume, shown again as their line, and
/export writes them beside the transcript."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.media.helpers import openai_images, write_png
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import open_session
from valarmind_tui.settings.config import load_settings


async def test_a_resumed_session_resends_its_images_stored_once(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = load_settings(git_repo, model="openai/gpt-4o", api_base=fake_model.openai_base,
                             api_key_env="FAKE_API_KEY")
    write_png(git_repo / "shot.png", (2400, 1600), "purple")
    fake_model.script(ScriptedTurn(text="Purple."), ScriptedTurn(text="Still purple."),
                      ScriptedTurn(text="Yes."))
    first = open_session(settings, git_repo, approver=PolicyApprover())
    await first.submit("what colour is @shot.png?")
    await first.submit("and @shot.png again?")  # the same image twice: one stored copy
    session_id = first.session_id
    await first.close()

    with sqlite3.connect(user_data_dir() / "sessions.db") as db:
        bodies = [b for (b,) in db.execute("SELECT body FROM messages")]
        (count,) = db.execute("SELECT COUNT(*) FROM images").fetchone()
    assert count == 1
    assert not any("base64" in body for body in bodies)
    assert sum(body.count("valarmind-image:") for body in bodies) == 2

    resumed = open_session(settings, git_repo, approver=PolicyApprover(), resume=session_id)
    shown = resumed.transcript()
    assert any("[image shot.png (" in getattr(item, "text", "") for item in shown.items)
    await resumed.submit("is it still purple?")
    sent = openai_images(fake_model.requests[2])
    assert [i.size for i in sent] == [(1568, 1045), (1568, 1045)]
    assert sent[0].getpixel((4, 4))[:3] == (128, 0, 128)

    exported = await resumed.run_command("/export chat.md")
    await resumed.close()
    assert exported.ok and "1 image(s)" in exported.text
    (picture,) = (git_repo / "chat-images").iterdir()
    assert picture.suffix == ".png"
    markdown = (git_repo / "chat.md").read_text()
    assert f"![image](chat-images/{picture.name})" in markdown
    assert "base64" not in markdown
