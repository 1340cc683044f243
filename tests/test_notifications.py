"""Calling the person back (session/notifications.py): the bytes for each kind, tmux's
passthrough or the bell, and when a notifier stays quiet."""

from __future__ import annotations

import time

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
