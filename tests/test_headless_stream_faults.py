"""`valarmind -p` as a real process against a model whose stream goes wrong: a cut stream and a
stalled one end the run with exit 1 and one plain line saying which, never exit 0 with half an
answer, and a stall is reported within its configured deadline."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import configure_key, model_flags, valarmind

ENV = {"FAKE_API_KEY": "sk-test"}


def test_a_cut_stream_fails_the_run(git_repo: Path, fake_model: Any) -> None:
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="Half of the answer and", fault="cut"))
    out = valarmind("-p", "explain", *model_flags(fake_model), cwd=git_repo, env=ENV)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "the answer was cut off" in out.stderr and "Traceback" not in out.stderr


def test_an_empty_stream_is_asked_again_then_answered(git_repo: Path, fake_model: Any) -> None:
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="x", fault="empty"), ScriptedTurn(text="The answer."))
    out = valarmind("-p", "explain", *model_flags(fake_model), cwd=git_repo, env=ENV)
    assert out.returncode == 0, out.stderr
    assert "The answer." in out.stdout


def test_a_stalled_stream_is_reported_within_its_deadline(git_repo: Path,
                                                          fake_model: Any) -> None:
    configure_key(git_repo)
    fake_model.script(ScriptedTurn(text="Some words, then", fault="stall_mid", stall_s=60))
    started = time.monotonic()
    out = valarmind("-p", "explain", *model_flags(fake_model), cwd=git_repo,
                    env={**ENV, "VALARMIND_STREAM_IDLE_TIMEOUT_S": "2"})
    assert out.returncode == 1
    assert "no data from the model for 2 s" in out.stderr
    assert time.monotonic() - started < 90  # with the start (litellm's import), loaded
