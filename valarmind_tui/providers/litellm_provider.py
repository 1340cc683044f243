"""Models through LiteLLM: one streaming call per turn, normalized, with our own retries.

litellm is imported inside `load_litellm()` (it costs ~2.5 s), after the environment is set so
that it never fetches its cost map, never retries a model hub and never prints. LiteLLM's own
retries are off: 429s wait for Retry-After and 5xx/connection errors back off here, and only
before anything was streamed to the caller.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from valarmind_tui.errors import AuthError, ProviderError
from valarmind_tui.providers.base import (
    ModelRequest,
    RetryNotice,
    StreamChunk,
    TurnComplete,
    Usage,
)
from valarmind_tui.providers.failures import Failure, classify, to_error
from valarmind_tui.providers.io_thread import in_io_thread
from valarmind_tui.providers.normalize import TurnAccumulator, _counter_ids, usage_from
from valarmind_tui.providers.one_iterator import keep_one_iterator

if TYPE_CHECKING:
    from valarmind_tui.config import Settings

LOCAL_PREFIXES = ("ollama/", "ollama_chat/", "lm_studio/", "hosted_vllm/", "llamafile/",
                  "vllm/", "lemonade/", "docker_model_runner/")
LOCAL_PLACEHOLDER_KEY = "sk-local-no-key"


@dataclass(frozen=True)
class ProviderConfig:
    """How to reach one model and how patiently to retry."""

    model: str
    """LiteLLM model string, e.g. `anthropic/claude-sonnet-4-5` or `openai/NAME`."""
    api_base: str | None = None
    """Endpoint override (OpenAI-compatible servers end in /v1; Anthropic's is the root)."""
    api_key_env: str | None = None
    """Environment variable holding the key; named in errors, never its value."""
    api_key: str | None = field(default=None, repr=False)
    """An explicit key; otherwise read from api_key_env."""
    timeout_s: float = 600
    """Timeout of one request."""
    max_retries: int = 4
    """Retries of 5xx, 529, connection errors and timeouts (exponential backoff)."""
    max_retry_wait_s: float = 120
    """Cap on any single wait (Retry-After included)."""
    default_retry_after_s: float = 30
    """Wait after a 429 that did not say how long."""
    backoff_base_s: float = 1.0
    """First backoff wait; doubled on each further retry."""
    max_rate_limit_retries: int = 10
    """429s tolerated in a row before giving up."""
    stream: bool = True
    """Stream the response (False: one JSON response, for servers that cannot stream)."""

    def resolved_key(self) -> str | None:
        if self.api_key:
            return self.api_key
        return os.environ.get(self.api_key_env) if self.api_key_env else None


def load_litellm() -> ModuleType:
    """Import litellm with network fetches, telemetry and debug prints turned off."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.num_retries = 0
    global _loaded
    _loaded = litellm
    return litellm


_loaded: ModuleType | None = None


async def load_litellm_async() -> ModuleType:
    """`load_litellm` without blocking the event loop: the first time it imports in a thread (a
    face's warm-up may be importing it meanwhile; waiting on that import lock on the loop
    froze the screen for seconds on the first prompt)."""
    return _loaded if _loaded is not None else await asyncio.to_thread(load_litellm)


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Cost from LiteLLM's offline cost map; None for models it does not know."""
    if not prompt_tokens and not completion_tokens:
        return None
    litellm = load_litellm()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    except Exception:  # noqa: BLE001 - unknown models raise assorted errors
        return None
    return float(prompt_cost + completion_cost)


class LiteLLMProvider:
    """The Provider Protocol on top of `litellm.acompletion`."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self._new_id = _counter_ids()

    @property
    def model(self) -> str:
        return self.config.model

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        """Stream one response; retries happen only before anything was yielded."""
        model = request.model or self.config.model
        rate_limited = transient = 0
        while True:
            acc = TurnAccumulator(new_id=self._new_id)
            yielded = False
            try:
                attempt = partial(self._attempt, request, model, acc)
                async with aclosing(in_io_thread(attempt)) as pieces:
                    async for piece in pieces:
                        yielded = True
                        yield piece
            except (ProviderError, asyncio.CancelledError):
                raise
            except Exception as exc:  # noqa: BLE001 - every LiteLLM failure is classified
                inner = exc.error if isinstance(exc, _MidStreamError) else exc
                failure = classify(inner, self.config.resolved_key(),
                                   mid_stream=isinstance(exc, _MidStreamError))
                if yielded or not failure.retryable:
                    raise to_error(failure, model, self.config.api_key_env) from None
                if failure.kind == "rate_limit":
                    rate_limited += 1
                    count, limit = rate_limited, self.config.max_rate_limit_retries
                else:
                    transient += 1
                    count, limit = transient, self.config.max_retries
                if count > limit:
                    raise to_error(failure, model, self.config.api_key_env) from None
                delay = self._delay(failure, transient)
                yield RetryNotice(self._notice(failure, delay, count, limit), delay,
                                  failure.status)
                await asyncio.sleep(delay)
                continue
            acc.usage = self._priced(model, acc.usage)
            yield TurnComplete(acc.finish())
            return

    def _delay(self, failure: Failure, transient: int) -> float:
        cap = self.config.max_retry_wait_s
        if failure.kind == "rate_limit":
            wait = failure.retry_after_s
            return min(cap, self.config.default_retry_after_s if wait is None else wait)
        backoff = self.config.backoff_base_s * 2 ** (transient - 1)
        return min(cap, max(backoff, failure.retry_after_s or 0.0))

    @staticmethod
    def _notice(failure: Failure, delay: float, count: int, limit: int) -> str:
        what = "rate limited" if failure.kind == "rate_limit" else (
            f"error {failure.status}" if failure.status else "connection problem")
        return (f"{what}: {failure.message} - retrying in {delay:.3g} s "
                f"(attempt {count} of {limit})")

    def _priced(self, model: str, usage: Usage) -> Usage:
        cost = cost_usd(model, usage.prompt_tokens, usage.completion_tokens)
        return Usage(usage.prompt_tokens, usage.completion_tokens, cost)

    def _kwargs(self, request: ModelRequest, model: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": model, "messages": request.messages, "stream": self.config.stream,
            "timeout": self.config.timeout_s, "max_retries": 0, "num_retries": 0,
            "drop_params": True,
        }
        if self.config.stream:
            kwargs["stream_options"] = {"include_usage": True}
        if request.tools:
            kwargs["tools"] = request.tools
        if request.max_tokens:
            kwargs["max_tokens"] = request.max_tokens
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        key = self.config.resolved_key()
        if key:
            kwargs["api_key"] = key
        return kwargs

    async def _attempt(
        self, request: ModelRequest, model: str, acc: TurnAccumulator
    ) -> AsyncGenerator[Any, None]:
        litellm = await load_litellm_async()
        response = await litellm.acompletion(**self._kwargs(request, model))
        if not self.config.stream:
            choice = response.choices[0]
            acc.finish_reason = choice.finish_reason
            for piece in acc.feed_message(choice.message):
                yield piece
            tokens = usage_from(getattr(response, "usage", None))
            if tokens:
                acc.usage = Usage(*tokens)
            return
        final_usage = None
        keep_one_iterator(response)
        try:
            async for chunk in response:
                hidden = getattr(chunk, "_hidden_params", None) or {}
                final_usage = (getattr(chunk, "usage", None) or hidden.get("usage")
                               or final_usage)
                for choice in chunk.choices or []:
                    if choice.finish_reason:
                        acc.finish_reason = choice.finish_reason
                    for piece in acc.feed_delta(choice.delta):
                        yield piece
        except Exception as exc:  # noqa: BLE001 - classified by the caller
            raise _MidStreamError(exc) from exc
        finally:
            closer = getattr(response, "aclose", None)
            if closer is not None:
                await closer()
        tokens = usage_from(final_usage) if _provider_sent_usage(response) else None
        if tokens:
            acc.usage = Usage(*tokens)


class _MidStreamError(Exception):
    """A failure after the stream started; carries the original exception."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _provider_sent_usage(response: Any) -> bool:
    """Whether the provider reported usage (LiteLLM otherwise fills in its own estimate)."""
    chunks = getattr(response, "chunks", None)
    if not isinstance(chunks, list):
        return True
    return any(getattr(c, "usage", None) is not None for c in chunks)


def _is_local(model: str, api_base: str | None) -> bool:
    if model.startswith(LOCAL_PREFIXES):
        return True
    if not api_base:
        return False
    host = urlparse(api_base).hostname or ""
    if host in ("localhost", "0.0.0.0"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def provider_from_settings(settings: Settings, model: str | None = None) -> LiteLLMProvider:
    """A provider for `model` (alias, agent name or model string) or the configured default.

    Raises AuthError naming the environment variable when the key is missing, before any request.
    """
    resolved = settings.resolve_model(model)
    if not resolved:
        raise ProviderError("no model configured: set `model` in config.toml or an API key "
                            "such as ANTHROPIC_API_KEY in the environment")
    env_var = settings.key_env_for(resolved)
    key = os.environ.get(env_var) if env_var else None
    if not key:
        if _is_local(resolved, settings.api_base) and not settings.api_key_env:
            key = LOCAL_PLACEHOLDER_KEY
        elif env_var:
            raise AuthError(f"no API key for {resolved}: set {env_var} in the environment",
                            env_var=env_var)
        else:
            raise AuthError(f"no API key for {resolved}: set api_key_env in config.toml to the "
                            "environment variable holding the key")
    config = ProviderConfig(
        model=resolved, api_base=settings.api_base, api_key_env=env_var, api_key=key,
        timeout_s=settings.request_timeout_s, max_retry_wait_s=settings.max_retry_wait_s,
    )
    return LiteLLMProvider(config)
