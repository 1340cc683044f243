"""The prompt in a real terminal: what is typed fast or pasted runs exactly as typed, and Tab
completes or does nothing (issue 29: Enter ran the popup's pick, Tab dropped what came next)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.ui.test_tmux_e2e import VALARMIND, Tmux

pytestmark = pytest.mark.slow


def _chat(tmux: Tmux) -> str:
    return tmux.screen()


def _prompt_line(tmux: Tmux) -> str:
    """The input's text: the line between the input's borders, above the status bar."""
    lines = [line for line in tmux.screen().splitlines() if line.strip()]
    return lines[-2].strip(" ▊▎")


@pytest.fixture
def tui(git_repo: Path):  # noqa: ANN201
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    tmux = Tmux(git_repo, dict(os.environ))
    tmux.start(["env", f"HOME={os.environ['HOME']}", str(VALARMIND)])
    try:
        tmux.wait(lambda: "no model" in tmux.screen(), 30, "the offline TUI")
        yield tmux
    finally:
        tmux.stop()


def test_commands_typed_at_once_run_as_typed(tui: Tmux) -> None:
    """Each line arrives in one burst with its Enter, as a paste or a fast typist sends it."""
    for line, answer in (("/theme valarmind-light", "Theme: valarmind-light"),
                         ("/cost", "Tokens: 0 in"),
                         ("/map --tokens 300", "files,"),
                         ("/mode plan", "Permission mode: plan")):
        tui.type(line)
        tui.key("Enter")
        tui.wait(lambda a=answer: a in _chat(tui), 10, f"the answer to {line}")
        tui.wait(lambda: _prompt_line(tui) == "", 5, f"an empty input after {line}")
    screen = _chat(tui)
    for other in ("/tasks", "/agents", "/clear", "/commit", "Conversation cleared"):
        assert other not in screen


def test_tab_never_drops_what_is_typed_next(tui: Tmux) -> None:
    """At a person's pace: the keys after Tab come once Tab was handled."""
    tui.type("hello")
    time.sleep(0.3)
    tui.key("Tab")
    time.sleep(0.3)
    tui.type(" world")
    tui.wait(lambda: _prompt_line(tui) == "hello world", 5, "'hello world' in the input")


def test_tab_completes_a_theme_name(tui: Tmux) -> None:
    tui.type("/theme valarmind-hi")
    tui.key("Tab")
    tui.wait(lambda: _prompt_line(tui) == "/theme valarmind-high-contrast", 5,
             "the completed theme name")
    tui.key("Enter")
    tui.wait(lambda: "Theme: valarmind-high-contrast" in _chat(tui), 10, "the switch")


def test_editing_keys_in_a_burst_apply_in_the_order_typed(tui: Tmux) -> None:
    """A fast typist's correction (Backspace, arrows, Home) arrives in the same burst as the
    letters around it: each key applies where it was typed, none after the letters that
    followed it."""
    tui.key("h", "e", "l", "l", "o", "BSpace", "p", "Left", "Left", "X", "Home", "[", "End",
            "]")
    tui.wait(lambda: _prompt_line(tui) == "[helXlp]", 5, "the burst applied in order")
    for burst in range(3):
        tui.key("End", "C-u")
        tui.wait(lambda: _prompt_line(tui) == "", 5, "the input emptied")
        tui.key("a", "b", "c", "BSpace", "BSpace", "d", "e", "Left", "BSpace", "f")
        tui.wait(lambda: _prompt_line(tui) == "afe", 5, f"burst {burst} applied in order")
