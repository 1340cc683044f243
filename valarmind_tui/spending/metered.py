"""A Provider that records each of its calls in the session's ledger, and refuses an agent's
call once a budget is spent (BudgetExhausted: the agent loop ends the run `budget`).

Reviewers', hooks' and sampling's calls are recorded but never refused: a reviewer left without
an answer would change what the gate lets through, and the next agent call stops the run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from valarmind_tui.core.errors import BudgetExhausted
from valarmind_tui.providers.base import ModelRequest, Provider, StreamChunk, TurnComplete, Usage
from valarmind_tui.providers.call_origin import CallOrigin, current_origin
from valarmind_tui.spending.meter import Spending
from valarmind_tui.store.ledger import LedgerEntry


class LedgeredProvider:
    """`inner`, with every call recorded in `spending` (and agents' calls budgeted)."""

    def __init__(self, inner: Provider, spending: Spending) -> None:
        self.inner = inner
        self.spending = spending

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        origin = current_origin()
        if origin.kind == "agent":
            stop = self.spending.check()
            if stop is not None:
                raise BudgetExhausted(stop.message())
        async for chunk in self.inner.stream(request):
            if isinstance(chunk, TurnComplete):
                model = request.model or self.inner.model
                self.spending.record(ledger_entry(origin, model, chunk.turn.usage))
            yield chunk


def ledger_entry(origin: CallOrigin, model: str, usage: Usage) -> LedgerEntry:
    return LedgerEntry(
        kind=origin.kind, agent=origin.agent, model=model, prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd,
        cached_tokens=usage.cached_tokens, reasoning_tokens=usage.reasoning_tokens,
        reviewer=origin.reviewer, delegation=origin.delegation, tool_call=origin.tool_call,
        tool=origin.tool, mcp_server=origin.mcp_server, skill=origin.skill)


def metered_by(spending: Spending) -> Callable[[Provider], Provider]:
    """What wraps each provider a session builds (ModelChoice, reviewers' own models)."""

    def wrap(provider: Provider) -> Provider:
        if isinstance(provider, LedgeredProvider):
            return provider
        return LedgeredProvider(provider, spending)

    return wrap
