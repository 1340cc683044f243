"""What a session's models spent: its agents plus each model reviewer, in one answer.

    spent = session_usage(session.totals, session.gate.reviewers)
    spent.prompt_tokens        # agents + reviewers
    spent.reviewers            # per reviewer label: calls, tokens, cost

`/cost`, `valarmind -p --output-format json` and the MCP server's results all read it, so no
face leaves the reviewers' share out of its totals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from valarmind_tui.providers.base import UsageTotals

COST_SOURCE = "LiteLLM's local cost map; unknown models count 0"


@dataclass(frozen=True)
class ReviewerSpend:
    """One reviewer's share."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd}


@dataclass(frozen=True)
class SessionUsage:
    """The agents' usage, each reviewer's, and their sums."""

    agents: UsageTotals
    reviewers: dict[str, ReviewerSpend] = field(default_factory=dict)
    """Per reviewer label (`tool-approve`...), only the reviewers that ran."""

    @property
    def prompt_tokens(self) -> int:
        return self.agents.prompt_tokens + sum(r.prompt_tokens for r in self.reviewers.values())

    @property
    def completion_tokens(self) -> int:
        return self.agents.completion_tokens + sum(
            r.completion_tokens for r in self.reviewers.values())

    @property
    def cost_usd(self) -> float:
        return self.agents.cost_usd + sum(r.cost_usd for r in self.reviewers.values())

    def totals(self) -> dict[str, Any]:
        """Agents and reviewers together: `prompt_tokens`, `completion_tokens`, `cost_usd`."""
        return {"prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd}

    def reviewers_dict(self) -> dict[str, dict[str, Any]]:
        return {label: spend.to_dict() for label, spend in self.reviewers.items()}

    def to_dict(self) -> dict[str, Any]:
        """The totals plus the `reviewers` split (what /cost returns as data)."""
        return {**self.totals(), "reviewers": self.reviewers_dict()}

    def describe(self) -> str:
        """What /cost says: the totals, then the agents' and each reviewer's share."""
        text = (f"Tokens: {self.prompt_tokens:,} in, {self.completion_tokens:,} out. "
                f"Cost: ${self.cost_usd:.4f} ({COST_SOURCE}).")
        if not self.reviewers:
            return text
        a = self.agents
        rows = [f"- {label}: {r.calls} reviews, {r.prompt_tokens:,} in, "
                f"{r.completion_tokens:,} out, ${r.cost_usd:.4f}"
                for label, r in self.reviewers.items()]
        return (text + f"\n\nAgents: {a.prompt_tokens:,} in, {a.completion_tokens:,} out, "
                f"${a.cost_usd:.4f}. Reviewers:\n" + "\n".join(rows))


class SpendingReviewers(Protocol):
    """What session_usage reads of the gate's reviewers."""

    def usage(self) -> Mapping[str, Any]: ...


def session_usage(agents: UsageTotals, reviewers: SpendingReviewers | None) -> SessionUsage:
    """The session's combined usage: `agents` (Session.totals) plus what each reviewer of the
    gate (None: none configured) spent."""
    spent: Mapping[str, Any] = reviewers.usage() if reviewers is not None else {}
    snapshot = UsageTotals(agents.prompt_tokens, agents.completion_tokens, agents.cost_usd,
                           agents.unpriced)
    return SessionUsage(snapshot, {
        label: ReviewerSpend(int(u.calls), int(u.prompt_tokens), int(u.completion_tokens),
                             float(u.cost_usd or 0.0))
        for label, u in spent.items()})
