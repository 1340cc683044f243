"""Models through LiteLLM: one streaming call per turn, normalized, with our own retries.

The call itself (providers/litellm_call.py) runs on this process's model-io thread, or in the
model process when the face started one (the TUI does: providers/model_process.py). LiteLLM's
own retries are off: 429s wait for Retry-After and 5xx/connection errors back off here, and
only before anything was streamed to the caller.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from valarmind_tui.core.errors import AuthError, ProviderError
from valarmind_tui.providers.base import (
    ModelRequest,
    RetryNotice,
    StreamChunk,
    TurnComplete,
)
from valarmind_tui.providers.failures import Failure, to_error
from valarmind_tui.providers.io_thread import in_io_thread
from valarmind_tui.providers.litellm_call import (
    Piece,
    apply,
    classify_call_error,
    completion_events,
)
from valarmind_tui.providers.normalize import TurnAccumulator, _counter_ids
from valarmind_tui.providers.process import client as model_process
from valarmind_tui.providers.process.client import RemoteFailure
from valarmind_tui.providers.stream_watch import Deadlines
from valarmind_tui.safety.secrets import SecretMasker, project_masker

if TYPE_CHECKING:
    from valarmind_tui.settings.config import Settings

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
    """Timeout of one read of a request (LiteLLM's)."""
    first_byte_timeout_s: float = Deadlines.first_byte_s
    """A stream that sends nothing this long after the request is reported as stalled."""
    stream_idle_timeout_s: float = Deadlines.idle_s
    """A stream silent this long between two chunks is reported as stalled."""
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


class LiteLLMProvider:
    """The Provider Protocol on top of `litellm.acompletion`."""

    def __init__(self, config: ProviderConfig, masker: SecretMasker | None = None) -> None:
        self.config = config
        self.masker = masker or project_masker(None, (config.api_key_env,))
        """Every request's messages pass through it: the last seam before the model."""
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
                async with aclosing(self._pieces(self._kwargs(request, model), acc,
                                                 self._deadlines())) as pieces:
                    async for piece in pieces:
                        yielded = True
                        yield piece
            except (ProviderError, asyncio.CancelledError):
                raise
            except Exception as exc:  # noqa: BLE001 - every LiteLLM failure is classified
                failure = self._classified(exc)
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
            yield TurnComplete(acc.finish(taken=_call_ids(request.messages)))
            return

    def _classified(self, exc: Exception) -> Failure:
        if isinstance(exc, RemoteFailure):  # the model process classified it
            return exc.failure
        return classify_call_error(exc, self.config.resolved_key())

    def _delay(self, failure: Failure, transient: int) -> float:
        cap = self.config.max_retry_wait_s
        if failure.kind == "rate_limit":
            wait = failure.retry_after_s
            return min(cap, self.config.default_retry_after_s if wait is None else wait)
        backoff = self.config.backoff_base_s * 2 ** (transient - 1)
        return min(cap, max(backoff, failure.retry_after_s or 0.0))

    @staticmethod
    def _notice(failure: Failure, delay: float, count: int, limit: int) -> str:
        what = {"rate_limit": "rate limited", "incomplete": "the answer was cut off"}.get(
            failure.kind, f"error {failure.status}" if failure.status else "connection problem")
        return (f"{what}: {failure.message} - retrying in {delay:.3g} s "
                f"(attempt {count} of {limit})")

    def _deadlines(self) -> Deadlines:
        return Deadlines(self.config.first_byte_timeout_s, self.config.stream_idle_timeout_s)

    @staticmethod
    def _pieces(kwargs: dict[str, Any], acc: TurnAccumulator, deadlines: Deadlines
                ) -> AsyncGenerator[Piece, None]:
        """The response's pieces from the model process when the face started one, else from
        litellm on this process's model-io thread."""
        process = model_process.running(kwargs.get("model"))
        if process is not None:
            return process.pieces(kwargs, acc, deadlines)
        return in_io_thread(partial(_here, kwargs, acc, deadlines))

    def _kwargs(self, request: ModelRequest, model: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": model, "messages": self.masker.mask_data(request.messages, cached=True),
            "stream": self.config.stream,
            "timeout": self.config.timeout_s, "max_retries": 0, "num_retries": 0,
            "drop_params": True,
            # LiteLLM's gateway for its proxy's MCP tools: ours are plain function tools, and
            # its check imports ~0.6 s of LiteLLM's proxy on the first request with tools.
            # LiteLLM strips the flag before the request (core_helpers.filter_internal_params).
            "_skip_mcp_handler": True,
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


async def _here(kwargs: dict[str, Any], acc: TurnAccumulator, deadlines: Deadlines
                ) -> AsyncGenerator[Piece, None]:
    async with aclosing(completion_events(kwargs, deadlines)) as events:
        async for event in events:
            for piece in apply(acc, event):
                yield piece


def _call_ids(messages: list[dict[str, Any]]) -> set[str]:
    """The tool-call ids the history already holds."""
    ids: set[str] = set()
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                ids.add(call["id"])
    return ids


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


def provider_from_settings(settings: Settings, model: str | None = None,
                           project_root: Path | None = None) -> LiteLLMProvider:
    """A provider for `model` (alias, agent name or model string) or the configured default;
    its requests are masked with `project_root`'s secrets (its `.env*` values) too.

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
        first_byte_timeout_s=settings.first_byte_timeout_s,
        stream_idle_timeout_s=settings.stream_idle_timeout_s,
    )
    masker = project_masker(project_root, (env_var, settings.api_key_env))
    return LiteLLMProvider(config, masker)
