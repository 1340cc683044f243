"""End to end in a real terminal: tmux runs `valarmind` in a git repo against the fake server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ui.scripts import CHANGED, ORIGINAL, edit_through_code_agent, tool_messages

pytestmark = pytest.mark.slow

VALARMIND = Path(sys.executable).parent / "valarmind"


class Tmux:
    """One private tmux server (its own socket) running one command."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.socket = f"valarmind-e2e-{uuid.uuid4().hex[:8]}"
        self.cwd, self.env = cwd, env

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, timeout=10, env=self.env).stdout

    def start(self, command: list[str]) -> None:
        self._tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "-c",
                   str(self.cwd), *command)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "e2e")

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "e2e", "-l", text)

    def key(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "e2e", *keys)

    def wait(self, until: Callable[[], Any], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")
            time.sleep(0.1)

    def stop(self) -> None:
        self._tmux("kill-server")


def _run_once(repo: Path, fake_model: Any, answer: str) -> Tmux:
    env = {**os.environ, "FAKE_API_KEY": "sk-test", "TERM": "xterm-256color"}
    tmux = Tmux(repo, env)
    tmux.start(["env", f"HOME={os.environ['HOME']}", "FAKE_API_KEY=sk-test", str(VALARMIND)])
    try:
        tmux.wait(lambda: "openai/fake-model" in tmux.screen(), 30, "the first frame")
        tmux.type("please use Hi")
        tmux.key("Enter")
        tmux.wait(lambda: "Allow edit_file?" in tmux.screen(), 90, "the approval modal")
        assert (repo / "app.py").read_text() == ORIGINAL
        tmux.type(answer)
        if answer == "n":
            tmux.wait(lambda: "Left it as it was." in tmux.screen(), 30, "the final answer")
        else:
            tmux.wait(lambda: "'Hi '" in (repo / "app.py").read_text(), 30, "the edit")
            tmux.wait(lambda: "Changed it." in tmux.screen(), 30, "the final answer")
        tmux.key("C-c")
        tmux.key("C-c")
    finally:
        tmux.stop()
    return tmux


def test_valarmind_in_tmux_yes_then_no(git_repo: Path, fake_model: Any) -> None:
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    assert VALARMIND.exists(), "the console script is installed in the venv"
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')

    fake_model.script(*edit_through_code_agent("Changed it."))
    _run_once(git_repo, fake_model, "y")
    assert (git_repo / "app.py").read_text() == CHANGED

    (git_repo / "app.py").write_text(ORIGINAL)
    fake_model.script(*edit_through_code_agent("Left it as it was."))
    _run_once(git_repo, fake_model, "n")
    assert (git_repo / "app.py").read_text() == ORIGINAL
    denied = tool_messages(fake_model.requests[-2])  # the code agent's turn after the denial
    assert denied and denied[-1].startswith("Denied")
