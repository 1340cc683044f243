"""Crash safety: `kill -9` of a real `valarmind -p` mid-stream, then `--continue` keeps every
word that had been shown, and the work tree can still be rewound to the turn's checkpoint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import bash, kill_after_streaming, shell_turn, tree_state
from tests.checkpoints.test_headless import ENV, configure
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import model_flags, valarmind
from valarmind_tui.context.interrupted import INTERRUPTED
from valarmind_tui.context.transcript import AnswerItem
from valarmind_tui.session.wiring import open_session
from valarmind_tui.settings.config import load_settings

ANSWER = " ".join(f"word{n}" for n in range(400))


def test_kill_mid_stream_then_continue(git_repo: Path, fake_model: Any) -> None:
    configure()
    before = tree_state(git_repo)
    turns = shell_turn(bash("echo made > made.txt && rm app.py"))
    turns[-1] = ScriptedTurn(text=ANSWER, chunk_size=6, chunk_delay_s=0.02)
    fake_model.script(*turns)
    proc = subprocess.Popen(
        [sys.executable, "-m", "valarmind_tui", "-p", "work", "--output-format", "jsonl",
         "--permission-mode", "bypass", *model_flags(fake_model)],
        cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **ENV})
    shown = kill_after_streaming(proc, 200)
    assert 200 < len(shown) < len(ANSWER)
    assert not (git_repo / "app.py").exists()

    settings = load_settings(git_repo, trusted=False)
    resumed = open_session(settings, git_repo, resume="last")
    answers = [i.text for i in resumed.transcript().items if isinstance(i, AnswerItem)]
    assert answers and answers[-1].startswith(shown) and answers[-1].endswith(INTERRUPTED)
    assert resumed.store is not None
    resumed.store.close()

    fake_model.script({"text": "Carrying on."})
    again = valarmind("--continue", "-p", "go on", *model_flags(fake_model), cwd=git_repo,
                      env=ENV)
    assert again.returncode == 0, again.stderr
    sent = fake_model.requests[-1]["messages"]
    assert sent[-2]["role"] == "assistant" and sent[-2]["content"].startswith(shown)
    assert sent[-1] == {"role": "user", "content": "go on"}

    rewound = valarmind("rewind", "--to", "1", cwd=git_repo)
    assert rewound.returncode == 0, rewound.stderr
    assert tree_state(git_repo) == before


def test_tool_calls_a_killed_process_left_open_get_a_result() -> None:
    from valarmind_tui.context.interrupted import close_interrupted

    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "a", "type": "function", "function": {"name": "bash"}},
                   {"id": "b", "type": "function", "function": {"name": "bash"}}]},
               {"role": "tool", "tool_call_id": "a", "content": "ok"}]
    added = close_interrupted(history, "")
    assert added == [{"role": "tool", "tool_call_id": "b", "content": INTERRUPTED}]
    assert close_interrupted([*history, *added, {"role": "assistant", "content": "x"}], "") == []
