"""Calling the person back (session/notifications.py): the bytes for each kind, tmux's
passthrough or the bell, and when a notifier stays quiet."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path
from typing import Any

from valarmind_tui.session.notifications import BELL, Notifier, notification_bytes
from valarmind_tui.settings.config import Settings


def test_each_kind_writes_its_sequence() -> None:
    assert notification_bytes("bell", "x") == "\a"
    assert notification_bytes("osc9", "Approval needed") == "\x1b]9;Approval needed\x07"
    assert notification_bytes("osc777", "done") == "\x1b]777;notify;ValarMind;done\x07"


def test_outside_text_cannot_end_the_sequence_early() -> None:
    sent = notification_bytes("osc9", "rm -rf /\x07\x1b]52;c;evil\x07")
    assert sent.count("\x07") == 1 and sent.count("\x1b") == 1 and sent.endswith("\x07")


def test_inside_tmux_an_osc_is_passed_through_or_the_bell_rings() -> None:
    assert notification_bytes("osc9", "hi", tmux=True, passthrough=False) == BELL
    wrapped = notification_bytes("osc9", "hi", tmux=True, passthrough=True)
    assert wrapped == "\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\"


def _notifier(written: list[str], settings: Settings | None = None) -> Notifier:
    return Notifier(settings or Settings(), written.append, env={})


def test_quiet_when_focused_or_turned_off() -> None:
    written: list[str] = []
    notifier = _notifier(written)
    assert notifier.approval_waits("edit app.py")  # focus never reported: unfocused
    notifier.focused = True
    assert not notifier.approval_waits("edit app.py")
    off = _notifier(written, Settings(notifications=False))
    assert not off.approval_waits("edit app.py")
    assert written == [BELL]


def test_only_a_turn_longer_than_notify_after_s_notifies() -> None:
    written: list[str] = []
    notifier = _notifier(written, Settings(notifications="osc9", notify_after_s=0.2))
    notifier.turn_began()
    assert not notifier.turn_ended("done")
    notifier.turn_began()
    time.sleep(0.25)
    assert notifier.turn_ended("done")
    assert written == ["\x1b]9;The agent finished (done).\x07"]


async def test_the_repl_calls_back_when_an_approval_waits(
    git_repo: Path, fake_model: Any, monkeypatch: Any
) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from tests.test_repl import _until
    from tests.ui.scripts import edit_through_code_agent
    from valarmind_tui.faces.repl.plain import Repl
    from valarmind_tui.faces.repl.readers import PromptToolkitReader
    from valarmind_tui.session.wiring import build_session

    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    monkeypatch.delenv("TMUX", raising=False)
    fake_model.script(*edit_through_code_agent("Kept it."))
    settings = Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY", notifications="osc777")
    session = build_session(settings, git_repo)
    out = io.StringIO()
    with create_pipe_input() as pipe:
        reader = PromptToolkitReader(session, input=pipe, output=DummyOutput())
        repl = asyncio.create_task(Repl(session, reader, out).run())
        pipe.send_text("use Hi\r")
        await _until(lambda: "Allow edit_file?" in out.getvalue())
        assert "\x1b]777;notify;ValarMind;Approval needed: " in out.getvalue()
        pipe.send_text("n\r")
        await _until(lambda: "Kept it." in out.getvalue())
        pipe.send_text("/quit\r")
        assert await asyncio.wait_for(repl, 10) == 0
