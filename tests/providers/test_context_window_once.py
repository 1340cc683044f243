"""The context window is asked of the model process once per model: every prompt needs it, and
a round trip per prompt (a thread woken, the child asked) sat between Enter and the request."""

from __future__ import annotations

import pytest

from valarmind_tui.providers import model_info
from valarmind_tui.providers.process import client as model_process


def test_the_model_process_is_asked_once_per_model(
    model_child: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_info, "_known", {})
    process = model_process.running()
    assert process is not None
    asked: list[str] = []
    real_call = type(process).call

    def counted(self: model_process.ModelProcess, op: str, timeout_s: float = 120,
                **args: object) -> object:
        asked.append(op)
        return real_call(self, op, timeout_s, **args)

    monkeypatch.setattr(type(process), "call", counted)
    assert model_info.known_context_window("openai/gpt-4o") is None
    assert model_info.context_window("openai/gpt-4o") == 128_000
    assert model_info.context_window("openai/gpt-4o") == 128_000
    assert model_info.known_context_window("openai/gpt-4o") == 128_000
    assert model_info.context_window("openai/fake-model") == model_info.DEFAULT_CONTEXT_WINDOW
    assert asked == ["context_window", "context_window"]


def test_a_failed_answer_is_not_remembered(
    model_child: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_info, "_known", {})
    process = model_process.running()
    assert process is not None

    def broken(*_args: object, **_kwargs: object) -> object:
        return "not a number"

    monkeypatch.setattr(type(process), "call", broken)
    assert model_info.context_window("openai/gpt-4o") == model_info.DEFAULT_CONTEXT_WINDOW
    assert model_info.known_context_window("openai/gpt-4o") is None
