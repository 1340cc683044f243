"""What a server tool call's model did: tokens, cost, the last stop reason, the first failure.

`MeteredProvider` wraps whoever thinks (our LiteLLM provider or the client's model through
sampling), so every path (agent loop, init draft) is counted without changing it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from valarmind_tui.providers.base import ModelRequest, Provider, StreamChunk, TurnComplete

_MAX_TOKENS = {"length", "max_tokens", "maxTokens"}


class MeteredProvider:
    """A Provider that passes everything through and remembers what it saw."""

    def __init__(self, inner: Provider, *, reports_usage: bool = True) -> None:
        self.inner = inner
        self.reports_usage = reports_usage
        """False for sampling: the client does not tell tokens, so they are unknown (null)."""
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost_usd: float | None = None
        self.turns = 0
        self.last_finish: str | None = None
        self.failure: str | None = None

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in self.inner.stream(request):
                if isinstance(chunk, TurnComplete):
                    self._count(chunk)
                yield chunk
        except Exception as exc:
            self.failure = self.failure or str(exc) or type(exc).__name__
            raise

    def _count(self, chunk: TurnComplete) -> None:
        turn = chunk.turn
        self.turns += 1
        self.last_finish = turn.finish_reason
        self.prompt_tokens += turn.usage.prompt_tokens
        self.completion_tokens += turn.usage.completion_tokens
        if turn.usage.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + turn.usage.cost_usd

    @property
    def hit_token_limit(self) -> bool:
        return self.last_finish in _MAX_TOKENS

    def usage(self) -> dict[str, Any]:
        if not self.reports_usage:
            return {"prompt_tokens": None, "completion_tokens": None, "cost_usd": None}
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd}


NO_MODEL_USAGE: dict[str, Any] = {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
