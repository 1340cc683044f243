"""The REPL prints spent / budget after each answer, a budget stop as `[budget]`, and /cost
with the budget line (a real `valarmind --plain` with piped input)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn


def test_the_repl_shows_spent_and_budget(git_repo: Path, fake_model: Any) -> None:
    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n[budget]\nprompt_turns = 2\n'
                      "session_tokens = 100000\n")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "app.py"}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10}}
    fake_model.script(ScriptedTurn(text="Hi.", usage={"prompt_tokens": 90, "completion_tokens": 3}),
                      read, read, read)
    out = subprocess.run([sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
                         input="hello\nread it all\n/cost\n/quit\n", capture_output=True,
                         text=True, env={**os.environ, "FAKE_API_KEY": "sk-test"}, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "[budget: prompt 1 turns/2 turns · session 93 tokens/100,000 tokens]" in text
    assert "[budget] The prompt's turns budget is spent (2 turns/2 turns)" in text
    assert "Budget: prompt turns 2 turns/2 turns · session tokens 313 tokens/100,000" in text
    assert len(fake_model.requests) == 3
