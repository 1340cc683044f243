"""Fallback models: when a model call fails in a way another model may not, the next one answers.

The person lists them (`fallback_models`, `[alias_fallbacks]`, user config only). A call moves on
only when its model's own retries are spent and the failure `falls_back` (overload, 5xx, a
context window too small; never a 4xx the next model would be sent the same), and only before
anything was streamed. Each move is a `FallbackUsed` chunk, which the agent loop publishes as
`ModelFellBack`: never a silent downgrade; its turn names the model that answered, whose count
its usage is (`AssistantTurn.model`). Once a model failed, the rest of the prompt starts
at the model that answered (`reset` at the next prompt tries the first again).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from valarmind_tui.core.errors import ProviderError
from valarmind_tui.providers.base import (
    FallbackUsed,
    ModelRequest,
    Provider,
    RetryNotice,
    StreamChunk,
    TurnComplete,
)


class FallbackProvider:
    """A provider whose calls move down each model's list of fallbacks."""

    def __init__(self, primary: Provider, fallbacks: Callable[[str], list[str]],
                 build: Callable[[str], Provider]) -> None:
        """`fallbacks(model)`: the models to try after `model`, in order; `build(model)`: a
        provider for one of them (its own key and endpoint)."""
        self.primary = primary
        self._fallbacks = fallbacks
        self._build = build
        self._built: dict[str, Provider] = {}
        self._answering: dict[str, str] = {}
        """For a requested model that failed during this prompt: the model that answered."""

    @property
    def model(self) -> str:
        return self.primary.model

    def reset(self) -> None:
        """A new prompt: each call tries its own model first again."""
        self._answering.clear()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        asked = request.model or self.primary.model
        chain = [asked, *(m for m in self._fallbacks(asked) if m != asked)]
        answering = self._answering.get(asked, asked)
        start = chain.index(answering) if answering in chain else 0
        for position in range(start, len(chain)):
            model = chain[position]
            shown = False
            try:
                provider = self.primary if position == 0 else self._provider(model)
                async for chunk in provider.stream(replace(request, model=model)):
                    shown = shown or not isinstance(chunk, RetryNotice)
                    if position and isinstance(chunk, TurnComplete):
                        chunk = TurnComplete(replace(chunk.turn, model=model))
                    yield chunk
                return
            except ProviderError as exc:
                if shown or not exc.falls_back or position + 1 == len(chain):
                    raise
                following = chain[position + 1]
                self._answering[asked] = following
                yield FallbackUsed(failed_model=model, model=following, reason=str(exc))

    def _provider(self, model: str) -> Provider:
        if model not in self._built:
            self._built[model] = self._build(model)
        return self._built[model]
