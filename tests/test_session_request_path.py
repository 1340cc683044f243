"""What runs on the event loop between a prompt and its request: nothing that waits for a
thread once the tokenizer the session measures with is loaded (a thread's round trip let the
screen's next frame, 10-20 ms, in before the request)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core import tokenizer
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session import prompt_run
from valarmind_tui.session.wiring import build_session


def test_an_encoding_is_ready_once_asked_whether_found_or_not() -> None:
    assert not tokenizer.encoding_ready("no-such-encoding")
    assert tokenizer.encoding("no-such-encoding") is None  # not on disk: the caller estimates
    assert tokenizer.encoding_ready("no-such-encoding")


async def _later_prompt_threads(git_repo: Path, fake_model: Any, model_settings: Any,
                                monkeypatch: pytest.MonkeyPatch) -> list[Callable[..., Any]]:
    """What the second of two prompts sent to a thread."""
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    fake_model.script(ScriptedTurn(text="first answer"), ScriptedTurn(text="second answer"))
    await session.submit("hello")
    sent: list[Callable[..., Any]] = []
    real = asyncio.to_thread

    async def recorded(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        sent.append(function)
        return await real(function, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", recorded)
    second = await session.submit("and again")
    await session.close()
    assert second.text == "second answer"
    return sent


async def test_a_later_prompt_measures_the_history_on_the_loop_once_the_tokenizer_is_loaded(
    git_repo: Path, fake_model: Any, model_settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokenizer.count_tokens("loaded, as the warm-up loads it")
    sent = await _later_prompt_threads(git_repo, fake_model, model_settings, monkeypatch)
    assert tokenizer.count_tokens not in sent


async def test_a_tokenizer_still_loading_is_waited_for_in_a_thread(
    git_repo: Path, fake_model: Any, model_settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_run, "encoding_ready", lambda *_: False)
    monkeypatch.setattr(prompt_run, "fits_uncounted", lambda *_: None)  # near the window
    sent = await _later_prompt_threads(git_repo, fake_model, model_settings, monkeypatch)
    assert tokenizer.count_tokens in sent
