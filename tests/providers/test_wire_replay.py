"""Every recorded provider payload, replayed over HTTP through real LiteLLM into LiteLLMProvider:
with litellm in this process, and in the model process the TUI uses (the same turn from both)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer
from tests.providers.wire_expectations import PREFIX, expected, parsed_arguments
from valarmind_tui.core.errors import AuthError, ProviderError
from valarmind_tui.providers.base import (
    ModelRequest,
    ReasoningPiece,
    RetryNotice,
    StreamFinished,
    TextPiece,
    TurnComplete,
)
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.providers.process import client as model_process

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "provider-wire"
CASES = sorted(FIXTURES.glob("*.json"))


def _provider(case: dict[str, Any], server: FakeModelServer) -> LiteLLMProvider:
    prefix = PREFIX[case["provider"]]
    name = case.get("model") or "recorded-model"
    base = server.anthropic_base if prefix == "anthropic" else server.openai_base
    return LiteLLMProvider(ProviderConfig(
        model=f"{prefix}/{name}", api_base=base, api_key="sk-test", api_key_env="TEST_KEY",
        stream=bool(case["stream"]), max_retries=1, max_rate_limit_retries=1,
        backoff_base_s=0.01, default_retry_after_s=0.01, max_retry_wait_s=0.05, timeout_s=20,
    ))


async def _run(provider: LiteLLMProvider) -> tuple[list[Any], Exception | None]:
    request = ModelRequest(messages=[{"role": "user", "content": "hi"}])
    pieces: list[Any] = []
    try:
        async for piece in provider.stream(request):
            pieces.append(piece)
    except Exception as exc:  # noqa: BLE001 - the test inspects it
        return pieces, exc
    return pieces, None


@pytest.fixture(params=["here", "model process"])
def place(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "here":
        monkeypatch.setattr(model_process, "running", lambda model=None: None)
    else:
        request.getfixturevalue("model_child")
    return str(request.param)


def test_the_fixture_corpus_is_present() -> None:
    assert len(CASES) >= 50, f"provider-wire fixtures missing under {FIXTURES}"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
async def test_recorded_case_normalizes(path: Path, fake_model: FakeModelServer,
                                        place: str) -> None:
    case = json.loads(path.read_text())
    want = expected(case)
    retryable = want.status in (429, 500, 502, 503, 529) and "quota" not in (want.error or "")
    fake_model.replay(case, times=2 if retryable else 1)
    pieces, error = await _run(_provider(case, fake_model))

    if want.error is not None:
        assert error is not None, f"expected an error, got {pieces[-1:]}"
        assert isinstance(error, ProviderError)
        assert not isinstance(error, AuthError)
        assert want.error in str(error)
        notices = [p for p in pieces if isinstance(p, RetryNotice)]
        assert len(notices) == (1 if retryable else 0)
        assert fake_model.pending == 0
        return

    assert error is None, f"{type(error).__name__}: {error}"
    assert isinstance(pieces[-1], TurnComplete)
    turn = pieces[-1].turn
    assert turn.text == want.text
    assert "".join(p.text for p in pieces if isinstance(p, TextPiece)) == want.text
    assert turn.reasoning == want.reasoning
    assert "".join(p.text for p in pieces if isinstance(p, ReasoningPiece)) == want.reasoning
    if case["format"] == "anthropic-messages":
        assert len(turn.thinking_blocks) == want.thinking_blocks
        assert [b["signature"] for b in turn.thinking_blocks if b.get("signature")] \
            == want.signatures

    assert [c.name for c in turn.tool_calls] == [c.name for c in want.calls]
    for got, exp in zip(turn.tool_calls, want.calls, strict=True):
        if exp.id:
            assert got.id == exp.id
        else:
            assert re.fullmatch(r"call_\d+", got.id), got.id
        assert got.parse_error is None
        assert got.arguments == parsed_arguments(exp.arguments)
    assert len({c.id for c in turn.tool_calls}) == len(turn.tool_calls)
    said_finished = [p for p in pieces if isinstance(p, StreamFinished)]
    if case["stream"] and turn.finish_reason:  # said once, as soon as the reason came
        assert said_finished == [StreamFinished(turn.finish_reason, len(turn.tool_calls))]
        assert pieces.index(said_finished[0]) > max(
            (i for i, p in enumerate(pieces) if isinstance(p, TextPiece)), default=-1)
    else:
        assert said_finished == []

    if "usage_in_choice" in case["features"]:
        pytest.xfail("LiteLLM 1.106.2 drops usage sent inside choices[0] (Kimi); the raw "
                     "chunk never reaches the provider layer")
    assert (turn.usage.prompt_tokens, turn.usage.completion_tokens) == (
        want.prompt_tokens, want.completion_tokens)
    assert turn.usage.cached_tokens == want.cached_tokens
    if want.reasoning_tokens or not want.reasoning:
        assert turn.usage.reasoning_tokens == want.reasoning_tokens
    else:
        # Reasoning the provider did not count apart (Anthropic bills thinking as output and
        # never splits it out): estimated from the reasoning text (normalize.py), streamed or
        # not, never more than the completion.
        counted = turn.usage.reasoning_tokens
        assert 0 < counted <= max(want.completion_tokens, 1)
