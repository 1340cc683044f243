"""Calling the person back: the terminal's bell or a desktop notification (OSC 9, OSC 777) when an
approval waits or a long turn ended while the terminal is not focused.

Faces write the bytes (the TUI through its driver, the REPL to its stream) and say what they know
of the focus: the TUI from the terminal's focus reports (mode 1004, Textual's AppFocus and
AppBlur), the REPL never knows. A terminal that never reported its focus counts as unfocused: a
call that was not needed costs a beep, a missed one costs a waiting approval. Inside tmux an OSC
goes through tmux's passthrough when `allow-passthrough` is on, else the bell rings instead
(tmux drops an OSC it may not pass). The `Notification` hooks are the gate's and fire as before.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from valarmind_tui.core.visible_text import visible

if TYPE_CHECKING:  # pydantic is not imported before the TUI's first frame
    from valarmind_tui.settings.config import Settings

BELL = "\a"
TITLE = "ValarMind"


def notification_bytes(how: str, message: str, *, tmux: bool = False,
                       passthrough: bool = False) -> str:
    """What to write for one notification: `how` is bell, osc9 or osc777."""
    text = visible(message).replace(";", ",")[:200]
    if how == "osc9":
        sequence = f"\x1b]9;{text}\x07"
    elif how == "osc777":
        sequence = f"\x1b]777;notify;{TITLE};{text}\x07"
    else:
        return BELL
    if not tmux:
        return sequence
    if not passthrough:
        return BELL
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def tmux_passes_through(env: Mapping[str, str]) -> bool:
    """Whether the tmux this runs in passes escape sequences on (`allow-passthrough`)."""
    try:
        said = subprocess.run(["tmux", "show-options", "-gqv", "allow-passthrough"],
                              capture_output=True, text=True, timeout=2, env=dict(env))
    except (OSError, subprocess.SubprocessError):
        return False
    return said.stdout.strip() in ("on", "all")


class Notifier:
    """One face's notifications, by the person's settings (`notifications`, `notify_after_s`)."""

    def __init__(self, settings: Settings, write: Callable[[str], None],
                 env: Mapping[str, str] | None = None) -> None:
        how = settings.notifications
        self.how: str | None = "bell" if how is True else (how or None)
        self.after_s = settings.notify_after_s
        self._write = write
        self._env = os.environ if env is None else env
        self._passthrough: bool | None = None
        self.focused: bool | None = None
        """The terminal's focus as last reported; None: never reported (counts as unfocused)."""
        self._turn_began: float | None = None

    def turn_began(self) -> None:
        """A prompt started running (the first of its turns)."""
        if self._turn_began is None:
            self._turn_began = time.monotonic()

    def turn_ended(self, status: str) -> bool:
        """The prompt ended; notifies when it ran longer than `notify_after_s`."""
        began, self._turn_began = self._turn_began, None
        if began is None or time.monotonic() - began < self.after_s:
            return False
        return self.notify(f"The agent finished ({status}).")

    def approval_waits(self, summary: str) -> bool:
        return self.notify(f"Approval needed: {summary}")

    def notify(self, message: str) -> bool:
        """Call the person back unless notifications are off or the terminal is focused."""
        if self.how is None or self.focused:
            return False
        tmux = bool(self._env.get("TMUX"))
        if tmux and self.how != "bell" and self._passthrough is None:
            self._passthrough = tmux_passes_through(self._env)
        self._write(notification_bytes(self.how, message, tmux=tmux,
                                       passthrough=bool(self._passthrough)))
        return True
