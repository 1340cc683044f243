"""In a real terminal, what the echo's partial updates leave on screen is what a full repaint
draws (the main screen renders only an update's rows: faces/tui/dirty_rows.py)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.ui.test_tmux_e2e import VALARMIND, Tmux

pytestmark = pytest.mark.slow


def _repainted(tmux: Tmux) -> str:
    """The screen after Textual drew it whole (a resize there and back repaints everything)."""
    tmux._tmux("resize-window", "-t", "e2e", "-x", "119")
    time.sleep(0.5)
    tmux._tmux("resize-window", "-t", "e2e", "-x", "120")
    time.sleep(0.8)
    return tmux.screen()


def test_typed_text_shows_as_a_full_repaint_shows_it(git_repo: Path) -> None:
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    tmux = Tmux(git_repo, dict(os.environ))
    tmux.start(["env", f"HOME={os.environ['HOME']}", str(VALARMIND)])
    try:
        tmux.wait(lambda: "no model" in tmux.screen(), 30, "the offline TUI")
        for text, key in (("héllo 世界 wide", "C-j"), ("second line", "Left"), ("", "Left"),
                          ("", "BSpace"), ("X", "")):  # at a person's pace
            if text:
                tmux.type(text)
            if key:
                tmux.key(key)
            time.sleep(0.2)
        tmux.wait(lambda: "second lXne" in tmux.screen(), 5, "the edited second line")
        tmux.key("Up")
        time.sleep(0.2)
        tmux.type("/")  # in the wide characters' line
        tmux.wait(lambda: any("héllo" in line and "/" in line
                              for line in tmux.screen().splitlines()), 5, "the '/' typed")
        time.sleep(0.5)
        typed = tmux.screen()
        assert typed == _repainted(tmux)
    finally:
        tmux.stop()
