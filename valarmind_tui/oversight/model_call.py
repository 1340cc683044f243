"""One reviewer: one model call with a budget, a time limit and a JSON verdict.

The answer must hold a JSON object `{"decision": ..., "reason": ...}` whose decision is one of
the reviewer's words. Anything else (prose, broken JSON, an unknown word), a model failure, the
time limit or a spent budget is "no verdict" (None): the caller then acts as if the reviewer were
off. Every review is a ReviewerRan event, with its tokens and cost.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import Notice, NoticeLevel, ReviewerRan
from valarmind_tui.providers.base import (
    AssistantTurn,
    ModelRequest,
    Provider,
    TurnComplete,
    Usage,
    UsageTotals,
)
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.safety.gate.oversight_points import ReviewVerdict
from valarmind_tui.settings.sections import ReviewerSettings

MAX_ANSWER_TOKENS = 512
MAX_REASON_CHARS = 1000


@dataclass
class ReviewerUsage(UsageTotals):
    """What one reviewer spent this session, and how many reviews it made."""

    calls: int = 0


def parse_verdict(text: str, allowed: tuple[str, ...]) -> ReviewVerdict | None:
    """The JSON verdict in a reviewer's answer, or None when there is no valid one."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("decision"), str):
        return None
    decision = data["decision"].strip().lower().replace("-", "_").replace(" ", "_")
    if decision not in allowed:
        return None
    reason = data.get("reason")
    return ReviewVerdict(decision, reason.strip()[:MAX_REASON_CHARS]
                         if isinstance(reason, str) else "")


class ModelReviewer:
    """A reviewer's settings, usage and model call."""

    def __init__(
        self, label: str, settings: ReviewerSettings, allowed: tuple[str, ...], *,
        provider_for: Callable[[str | None], Provider], bus: EventBus | None = None,
    ) -> None:
        self.label = label
        """The name in events and /cost: `tool-approve`..."""
        self.settings = settings
        self.allowed = allowed
        self.provider_for = provider_for
        self.bus = bus
        self.usage = ReviewerUsage()
        self._budget_told = False

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def _over_budget(self) -> str | None:
        s, u = self.settings, self.usage
        if u.calls >= s.max_calls:
            return f"its budget of {s.max_calls} reviews is spent"
        if u.tokens >= s.max_tokens:
            return f"its budget of {s.max_tokens:,} tokens is spent"
        return None

    async def review(self, system: str, user: str, subject: str) -> ReviewVerdict | None:
        """Ask the model; None when the reviewer is off or gave no valid verdict."""
        if not self.enabled:
            return None
        spent = self._over_budget()
        if spent is not None:
            if not self._budget_told:
                self._budget_told = True
                self._notice("warning", f"The {self.label} reviewer is skipped from now on: "
                             f"{spent} ([reviewers] in your config).")
            self._report(subject, "none", spent, "", Usage(), 0)
            return None
        started = time.monotonic()
        model = ""
        try:
            provider = self.provider_for(self.settings.model)
            model = provider.model
            request = ModelRequest(
                messages=[{"role": "system", "content": system},
                          {"role": "user", "content": user}],
                model=None, max_tokens=MAX_ANSWER_TOKENS)
            turn = await asyncio.wait_for(self._ask(provider, request),
                                          self.settings.timeout_s)
        except TimeoutError:
            self._failed(subject, model, started, f"no answer within {self.settings.timeout_s:g} s")
            return None
        except Exception as exc:  # noqa: BLE001 - a failing reviewer must never fail the call
            self._failed(subject, model, started, f"{type(exc).__name__}: {exc}")
            return None
        self.usage.calls += 1
        self.usage.add(turn.usage)
        verdict = parse_verdict(turn.text, self.allowed)
        elapsed = int((time.monotonic() - started) * 1000)
        if verdict is None:
            self._report(subject, "none", f"not a valid verdict: {turn.text[:200]!r}", model,
                         turn.usage, elapsed)
            self._notice("warning", f"The {self.label} reviewer's answer was not a valid "
                         "verdict; it was ignored.")
            return None
        self._report(subject, verdict.decision, verdict.reason, model, turn.usage, elapsed)
        return verdict

    async def _ask(self, provider: Provider, request: ModelRequest) -> AssistantTurn:
        turn: AssistantTurn | None = None
        with calls_for(kind="reviewer", reviewer=self.label):
            async for chunk in provider.stream(request):
                if isinstance(chunk, TurnComplete):
                    turn = chunk.turn
        if turn is None:
            raise RuntimeError("the model's stream ended without a complete response")
        return turn

    def _failed(self, subject: str, model: str, started: float, why: str) -> None:
        self.usage.calls += 1
        elapsed = int((time.monotonic() - started) * 1000)
        self._report(subject, "none", why, model, Usage(), elapsed)
        self._notice("warning", f"The {self.label} reviewer failed ({why[:300]}); it was "
                     "ignored.")

    def _report(self, subject: str, verdict: str, reason: str, model: str, usage: Usage,
                elapsed: int) -> None:
        if self.bus is None:
            return
        self.bus.publish(ReviewerRan(
            reviewer=self.label, subject=subject[:300], verdict=verdict, reason=reason[:500],
            model=model, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd,
            duration_ms=elapsed))

    def _notice(self, level: NoticeLevel, message: str) -> None:
        if self.bus is not None:
            self.bus.publish(Notice(level=level, message=message))
