"""What the agent loop knows about models: a streaming Protocol and one normalized turn.

History messages are OpenAI chat-format dicts (LiteLLM's lingua franca). An AssistantTurn turns
itself back into such a message with everything the provider needs replayed (reasoning_content,
Anthropic thinking blocks), because dropping them breaks the next request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model asked for, normalized."""

    id: str
    """The provider's id, or a synthetic `call_<n>` when it sent none."""
    name: str
    arguments: dict[str, Any]
    """Parsed arguments; empty when they did not parse (see parse_error)."""
    raw_arguments: str = ""
    """The arguments exactly as received."""
    parse_error: str | None = None
    """Why the arguments did not parse; the loop returns this to the model as a tool error."""


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one response."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """None when the model is not in LiteLLM's local cost map."""
    cached_tokens: int = 0
    """Of prompt_tokens, those read from the provider's prompt cache (OpenAI's
    `prompt_tokens_details.cached_tokens`, Anthropic's `cache_read_input_tokens`)."""
    reasoning_tokens: int = 0
    """Of completion_tokens, those spent thinking (`completion_tokens_details.reasoning_tokens`)."""


@dataclass
class UsageTotals:
    """Running totals shared by every agent of a session (and one per reviewer)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    """The sum of the known prices; `unpriced` calls add nothing to it."""
    unpriced: int = 0
    """Responses whose model LiteLLM has no price for."""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, usage: Usage) -> None:
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.cost_usd += usage.cost_usd or 0.0
        if usage.cost_usd is None and usage.prompt_tokens + usage.completion_tokens:
            self.unpriced += 1


@dataclass(frozen=True)
class AssistantTurn:
    """One normalized assistant response."""

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    thinking_blocks: tuple[dict[str, Any], ...] = ()
    """Anthropic thinking / redacted_thinking blocks, with signatures, replayed verbatim."""
    model: str | None = None
    """The model that answered when it is not the one asked: a fallback model
    (providers/fallback.py). Its usage is that model's own count."""

    def to_message(self) -> dict[str, Any]:
        """The OpenAI-format assistant message to append to history."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.reasoning:
            message["reasoning_content"] = self.reasoning
        if self.thinking_blocks:
            message["thinking_blocks"] = [dict(b) for b in self.thinking_blocks]
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": call.raw_arguments
                        if call.parse_error is None and call.raw_arguments
                        else json.dumps(call.arguments),
                    },
                }
                for call in self.tool_calls
            ]
        return message


@dataclass(frozen=True)
class TextPiece:
    """A streamed piece of assistant text."""

    text: str


@dataclass(frozen=True)
class ReasoningPiece:
    """A streamed piece of reasoning."""

    text: str


@dataclass(frozen=True)
class RetryNotice:
    """The provider is waiting before retrying (429 or a transient failure)."""

    message: str
    delay_s: float
    status: int | None = None


@dataclass(frozen=True)
class FallbackUsed:
    """The call's model failed (overload, 5xx, context window) and the next of the person's
    fallback models answers it (providers/fallback.py)."""

    failed_model: str
    model: str
    reason: str


@dataclass(frozen=True)
class StreamFinished:
    """The model has finished writing (its finish reason came); the turn completes once the
    library has counted the response, which took LiteLLM ~300 ms for a 6,000-token answer."""

    finish_reason: str
    tool_calls: int
    """How many tool calls the response holds."""


@dataclass(frozen=True)
class TurnComplete:
    """The last chunk of a stream: the whole normalized turn."""

    turn: AssistantTurn


StreamChunk = (TextPiece | ReasoningPiece | StreamFinished | RetryNotice | FallbackUsed
               | TurnComplete)


@dataclass(frozen=True)
class ModelRequest:
    """Everything needed for one model call."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI function-tool schemas."""
    model: str | None = None
    """Overrides the provider's default model (an alias is already resolved here)."""
    max_tokens: int | None = None


class Provider(Protocol):
    """A model behind a streaming interface."""

    @property
    def model(self) -> str:
        """The default model string."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        """Stream one response; the last chunk is TurnComplete. Raises ProviderError."""
        ...
