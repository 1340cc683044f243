"""Vim keys in a real terminal (issue #35): tmux types into `valarmind` with editor_mode = "vim";
the prompt the model receives is the one the motions and operators made."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.ui.test_tmux_e2e import VALARMIND, Tmux

pytestmark = pytest.mark.slow


def test_vim_motions_edit_the_prompt_in_a_terminal(git_repo: Path, fake_model: Any) -> None:
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\neditor_mode = "vim"\n')
    fake_model.script(ScriptedTurn(text="Done fixing."))
    env = {**os.environ, "FAKE_API_KEY": "sk-test", "TERM": "xterm-256color"}
    tmux = Tmux(git_repo, env)
    tmux.start(["env", f"HOME={os.environ['HOME']}", "FAKE_API_KEY=sk-test", str(VALARMIND)])
    try:
        tmux.wait(lambda: "openai/fake-model" in tmux.screen(), 30, "the first frame")
        tmux.wait(lambda: "-- INSERT --" in tmux.screen(), 10, "the vim mode in the border")
        tmux.type("please fix teh bug in app.py now")
        tmux.wait(lambda: "app.py now" in tmux.screen(), 10, "the typed prompt")
        tmux.key("Escape")
        tmux.wait(lambda: "-- NORMAL --" in tmux.screen(), 10, "normal mode")
        for keys in ("0", "2w", "cw", "the", "Escape"):  # teh -> the
            time.sleep(0.3)
            tmux.type(keys) if keys != "Escape" else tmux.key("Escape")
        for keys in ("$", "F ", "D"):  # " now" deleted: back to the space, then to the end
            time.sleep(0.3)
            tmux.type(keys)
        tmux.wait(lambda: "fix the bug in app.py" in tmux.screen()
                  and "app.py now" not in tmux.screen(), 10, "the edited prompt")
        tmux.key("Enter")
        tmux.wait(lambda: "Done fixing." in tmux.screen(), 60, "the answer")
    finally:
        tmux.stop()
    users = [m for m in fake_model.requests[0]["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == "please fix the bug in app.py"
