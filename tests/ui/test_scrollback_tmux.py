"""The conversation stays in the terminal's scrollback after the TUI quits (issue #35): tmux runs
`valarmind` against the fake server, the person asks, reads the answer, quits with Ctrl+C twice,
and the pane's whole history (`capture-pane -S -`) still holds the conversation."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.ui.test_tmux_e2e import VALARMIND, Tmux

pytestmark = pytest.mark.slow

ANSWER = "Here is **the answer**, in `app.py`.\n\n- first point\n- second point ENDWORD\n"


def _configure(fake_model: Any, extra: str = "") -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      f'api_key_env = "FAKE_API_KEY"\n{extra}')


def _ask_and_quit(repo: Path) -> str:
    """Ask one question, wait for the answer, quit; the pane's whole history after the exit."""
    env = {**os.environ, "FAKE_API_KEY": "sk-test", "TERM": "xterm-256color"}
    tmux = Tmux(repo, env)
    tmux.start(["env", f"HOME={os.environ['HOME']}", "FAKE_API_KEY=sk-test", str(VALARMIND)])
    try:
        tmux._tmux("set-option", "-t", "e2e", "remain-on-exit", "on")
        tmux.wait(lambda: "openai/fake-model" in tmux.screen(), 30, "the first frame")
        tmux.type("what is in app.py")
        tmux.key("Enter")
        tmux.wait(lambda: "ENDWORD" in tmux.screen(), 60, "the answer")
        tmux.key("C-c")
        tmux.key("C-c")
        tmux.wait(lambda: tmux._tmux("display", "-p", "-t", "e2e", "#{pane_dead}").strip()
                  == "1", 30, "valarmind to exit")
        return tmux._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "e2e")
    finally:
        tmux.stop()


def test_the_conversation_is_in_the_scrollback_after_quitting(
        git_repo: Path, fake_model: Any) -> None:
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    _configure(fake_model)
    fake_model.script(ScriptedTurn(text=ANSWER))
    history = _ask_and_quit(git_repo)
    lines = history.splitlines()
    header = next(i for i, line in enumerate(lines) if "ValarMind session" in line)
    after = "\n".join(lines[header:])
    assert "> what is in app.py" in after
    assert "Here is the answer, in app.py." in after  # rendered: no ** or backticks left
    assert "**" not in after
    assert "• first point" in after and "second point ENDWORD" in after
    resume = [line for line in lines[header:] if "valarmind --resume" in line]
    assert resume, after
    session_id = lines[header].split("ValarMind session ", 1)[1].split()[0]
    assert session_id in resume[0]


def test_scrollback_on_exit_false_leaves_nothing(git_repo: Path, fake_model: Any) -> None:
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    _configure(fake_model, "scrollback_on_exit = false\n")
    fake_model.script(ScriptedTurn(text=ANSWER))
    history = _ask_and_quit(git_repo)
    assert "ValarMind session" not in history
    assert "valarmind --resume" not in history
