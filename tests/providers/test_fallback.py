"""Fallback models: an overload, a 5xx or a context window too small moves the call to the next
of the person's fallback models, said as ModelFellBack; a 4xx another model would repeat does
not; a repository cannot list fallbacks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.errors import ProviderError
from valarmind_tui.core.events import ModelFellBack, RunStatus
from valarmind_tui.providers.base import FallbackUsed, ModelRequest, TurnComplete
from valarmind_tui.providers.fallback import FallbackProvider
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings

OVERLOADED = ScriptedTurn(status=529, headers={"x-should-retry": "false"},
                          error="Overloaded")


def _session(git_repo: Path, model_settings: Any, **flags: Any) -> Any:
    session = build_session(model_settings(git_repo, **flags), git_repo,
                            approver=PolicyApprover())
    session.seen = []
    session.bus.add_listener(session.seen.append)
    return session


async def test_an_overloaded_model_falls_back_and_says_which_model_answered(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = _session(git_repo, model_settings, fallback_models=["openai/fake-backup"])
    fake_model.script(OVERLOADED, ScriptedTurn(text="answered by the backup"))
    result = await session.submit("hello")
    await session.close()
    assert result.text == "answered by the backup"
    assert [r["model"] for r in fake_model.requests] == ["fake-model", "fake-backup"]
    fell = [e for e in session.seen if isinstance(e, ModelFellBack)]
    assert [(e.failed_model, e.model) for e in fell] == [
        ("openai/fake-model", "openai/fake-backup")]
    assert "Overloaded" in fell[0].reason


async def test_the_rest_of_the_prompt_stays_with_the_model_that_answered_then_tries_again(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = _session(git_repo, model_settings, fallback_models=["openai/fake-backup"])
    fake_model.script(
        OVERLOADED,
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="first done"),
        ScriptedTurn(text="second done"))
    await session.submit("one")
    await session.submit("two")
    await session.close()
    assert [r["model"] for r in fake_model.requests] == [
        "fake-model", "fake-backup", "fake-backup", "fake-model"]


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_a_4xx_another_model_would_repeat_never_falls_back(
    git_repo: Path, fake_model: Any, model_settings: Any, status: int
) -> None:
    session = _session(git_repo, model_settings, fallback_models=["openai/fake-backup"])
    fake_model.script(ScriptedTurn(status=status, error="bad request"),
                      ScriptedTurn(text="never sent"))
    result = await session.submit("hello")
    await session.close()
    assert result.status == RunStatus.FAILED
    assert [r["model"] for r in fake_model.requests] == ["fake-model"]
    assert not any(isinstance(e, ModelFellBack) for e in session.seen)


async def test_a_context_window_too_small_falls_back(
    git_repo: Path, fake_model: Any, model_settings: Any
) -> None:
    session = _session(git_repo, model_settings, fallback_models=["openai/fake-long"])
    fake_model.script(
        ScriptedTurn(status=400, error={"error": {
            "message": "This model's maximum context length is 8192 tokens. However, your "
                       "messages resulted in 9000 tokens.",
            "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        ScriptedTurn(text="the long one answered"))
    result = await session.submit("hello")
    await session.close()
    assert result.text == "the long one answered"
    assert [r["model"] for r in fake_model.requests] == ["fake-model", "fake-long"]


async def test_overload_after_the_retries_are_spent_moves_on(fake_model: Any) -> None:
    config = ProviderConfig(model="openai/fake-model", api_base=fake_model.openai_base,
                            api_key="sk-test", max_retries=1, backoff_base_s=0.01)
    primary = LiteLLMProvider(config)
    backup = LiteLLMProvider(ProviderConfig(model="openai/fake-backup",
                                            api_base=fake_model.openai_base, api_key="sk-test"))
    provider = FallbackProvider(primary, lambda model: ["openai/fake-backup"], lambda m: backup)
    fake_model.script(ScriptedTurn(status=529, error="Overloaded"),
                      ScriptedTurn(status=529, error="Overloaded"), ScriptedTurn(text="ok"))
    chunks = [c async for c in provider.stream(ModelRequest(
        messages=[{"role": "user", "content": "hi"}]))]
    assert [r["model"] for r in fake_model.requests] == ["fake-model", "fake-model",
                                                         "fake-backup"]
    assert any(isinstance(c, FallbackUsed) for c in chunks)
    assert isinstance(chunks[-1], TurnComplete) and chunks[-1].turn.text == "ok"


async def test_when_every_model_fails_the_last_error_is_said(fake_model: Any) -> None:
    def provider(model: str) -> LiteLLMProvider:
        return LiteLLMProvider(ProviderConfig(model=model, api_base=fake_model.openai_base,
                                              api_key="sk-test"))

    chained = FallbackProvider(provider("openai/a"), lambda m: ["openai/b"], provider)
    fake_model.script(OVERLOADED, OVERLOADED)
    with pytest.raises(ProviderError, match="openai/b"):
        async for _ in chained.stream(ModelRequest(messages=[{"role": "user", "content": "x"}])):
            pass


def test_an_alias_has_its_own_fallbacks() -> None:
    settings = Settings(model="smart", aliases={"smart": "anthropic/big", "fast": "openai/small"},
                        fallback_models=["openai/generic"],
                        alias_fallbacks={"smart": ["fast", "openai/other"]})
    assert settings.fallbacks_for("anthropic/big") == ["openai/small", "openai/other"]
    assert settings.fallbacks_for("openai/small") == ["openai/generic"]


def test_print_mode_says_the_fallback_on_stderr(git_repo: Path, fake_model: Any) -> None:
    from tests.test_headless import model_flags, valarmind

    write_user_config('api_key_env = "FAKE_API_KEY"\nfallback_models = ["openai/fake-backup"]\n')
    fake_model.script(OVERLOADED, ScriptedTurn(text="backup here"))
    out = valarmind("-p", "hello", *model_flags(fake_model), cwd=git_repo,
                    env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "backup here"
    assert "openai/fake-model failed" in out.stderr and "openai/fake-backup answers" in out.stderr
