"""The daily comforts in a real terminal (tmux): a message typed while the agent works reaches
the model in the next request of that run, in the TUI and the REPL; a fallback model named on
screen after a 529; the bell and OSC 9 bytes in the pane's raw output while the terminal is not
focused; the person's status-line script on screen."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.ui.scripts import edit_through_code_agent
from tests.ui.test_tmux_e2e import VALARMIND, Tmux

pytestmark = pytest.mark.slow


class RawTmux(Tmux):
    """A Tmux whose pane's raw output is copied to a file (`pipe-pane`): what the program wrote
    to the terminal, escape sequences included."""

    def __init__(self, cwd: Path, env: dict[str, str], raw: Path, passthrough: bool) -> None:
        super().__init__(cwd, env)
        self.raw = raw
        self.passthrough = passthrough

    def start(self, command: list[str]) -> None:
        super().start(["sleep", "600"])  # a pane to set up before the program runs in it
        if self.passthrough:
            self._tmux("set-option", "-g", "allow-passthrough", "on")
        self._tmux("pipe-pane", "-t", "e2e", f"cat >> {self.raw}")
        self._tmux("respawn-pane", "-k", "-t", "e2e", *command)
        self._tmux("pipe-pane", "-t", "e2e", f"cat >> {self.raw}")

    def written(self) -> bytes:
        return self.raw.read_bytes() if self.raw.exists() else b""


def _configure(fake_model: Any, extra: str = "") -> None:
    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      f'api_key_env = "FAKE_API_KEY"\n{extra}')


@pytest.fixture
def terminal(git_repo: Path, tmp_path: Path):  # noqa: ANN201
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    started: list[RawTmux] = []

    def start(*args: str, passthrough: bool = False) -> RawTmux:
        env = {**os.environ, "FAKE_API_KEY": "sk-test", "TERM": "xterm-256color"}
        tmux = RawTmux(git_repo, env, tmp_path / f"raw{len(started)}.bin", passthrough)
        started.append(tmux)
        tmux.start(["env", f"HOME={os.environ['HOME']}", "FAKE_API_KEY=sk-test",
                    str(VALARMIND), *args])
        return tmux

    try:
        yield start
    finally:
        for tmux in started:
            tmux.stop()


SLOW_STEP = ScriptedTurn(text="Reading app.py first. " * 12, chunk_delay_s=0.1,
                         tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}])


def test_tui_steering_the_bell_and_the_status_line(
    terminal: Any, fake_model: Any, tmp_path: Path
) -> None:
    script = tmp_path / "status.sh"
    script.write_text('read -r state\n'
                      'echo "MY-LINE $(echo "$state" | grep -o \'"mode": "[a-z-]*"\')"\n')
    _configure(fake_model, f'notifications = "bell"\nnotify_after_s = 0\n'
                           f'status_line = "bash {script}"\n')
    fake_model.script(SLOW_STEP, ScriptedTurn(text="Brief: it greets."))
    tmux = terminal()
    tmux.wait(lambda: 'MY-LINE "mode": "default"' in tmux.screen(), 30, "the status line")
    before = tmux.written().count(b"\x07")
    tmux.type("explain app.py")
    tmux.key("Enter")
    tmux.wait(lambda: len(fake_model.requests) >= 1, 30, "the first request")
    tmux.type("be brief")
    tmux.key("Enter")
    tmux.wait(lambda: "queued for the agent's next step" in tmux.screen()
              or "delivered" in tmux.screen(), 20, "the message queued")
    tmux.wait(lambda: "Brief: it greets." in tmux.screen(), 30, "the answer")
    assert "delivered at the agent's next step" in tmux.screen()
    assert len(fake_model.requests) == 2
    assert fake_model.requests[1]["messages"][-1] == {"role": "user", "content": "be brief"}
    # the turn ended while tmux (focus-events off) never reported the focus: the bell rang
    tmux.wait(lambda: tmux.written().count(b"\x07") > before, 10, "the bell")


def test_tui_fallback_named_on_screen_and_osc9_for_an_approval(
    terminal: Any, fake_model: Any
) -> None:
    _configure(fake_model, 'fallback_models = ["openai/fake-backup"]\n'
                           'notifications = "osc9"\n')
    fake_model.script(ScriptedTurn(status=529, headers={"x-should-retry": "false"},
                                   error="Overloaded"),
                      *edit_through_code_agent("Left it."))
    tmux = terminal(passthrough=True)
    tmux.wait(lambda: "openai/fake-model" in tmux.screen(), 30, "the first frame")
    tmux.type("please edit app.py")
    tmux.key("Enter")
    tmux.wait(lambda: "openai/fake-backup (fallback)" in tmux.screen(), 30, "the fallback")
    tmux.wait(lambda: "Allow edit_file?" in tmux.screen(), 30, "the approval")
    # inside tmux with allow-passthrough on: OSC 9 wrapped in tmux's passthrough
    tmux.wait(lambda: b"\x1bPtmux;\x1b\x1b]9;Approval needed" in tmux.written(), 10, "OSC 9")
    tmux.type("n")
    tmux.wait(lambda: "Left it." in tmux.screen(), 30, "the final answer")
    # said in the chat; the approval dialog, up at once on a fast machine, hid it until now
    assert "openai/fake-model failed" in tmux.screen()
    assert [r["model"] for r in fake_model.requests] == ["fake-model", *["fake-backup"] * 4]


def test_repl_steering_and_btw(terminal: Any, fake_model: Any) -> None:
    _configure(fake_model, "notifications = false\n")
    fake_model.script(SLOW_STEP, ScriptedTurn(text="Reading app.py for you."),
                      ScriptedTurn(text="Brief: it greets."))
    tmux = terminal("--plain")
    tmux.wait(lambda: "/help for commands" in tmux.screen(), 30, "the REPL")
    tmux.type("explain app.py")
    tmux.key("Enter")
    tmux.wait(lambda: len(fake_model.requests) >= 1, 30, "the first request")
    tmux.wait(lambda: "type to steer" in tmux.screen(), 10, "the steering prompt")
    tmux.type("/btw what are you doing?")
    tmux.key("Enter")
    tmux.wait(lambda: "[btw] Reading app.py for you." in tmux.screen(), 20, "the aside")
    assert "tools" not in fake_model.requests[1]  # the side question: one call, no tools
    tmux.type("be brief")
    tmux.key("Enter")
    tmux.wait(lambda: "Brief: it greets." in tmux.screen(), 30, "the answer")
    screen = tmux.screen()
    assert "[queued for the next step] be brief" in screen
    assert "[delivered] be brief" in screen
    assert "Reading app.py first." in screen  # streamed text is not drawn over by the prompt
    assert len(fake_model.requests) == 3
    main = fake_model.requests[2]["messages"]
    assert main[-1] == {"role": "user", "content": "be brief"}
    assert "what are you doing" not in str(main)  # the aside stayed out of the run
    assert b"\x07" not in tmux.written()  # notifications = false
