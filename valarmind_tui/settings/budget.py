"""`[budget]` in the user's config: how much a prompt, a session and a day may spend.

A repository's config never sets it (settings/repository.py): only the person limits, or
lifts a limit on, what their own money buys. The flags `--max-cost-usd`, `--max-tokens`,
`--max-turns` and `--max-time` set the prompt's limits for one run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class BudgetSettings(BaseModel):
    """Limits on model spending; each unset (None) is no limit. Costs are from LiteLLM's offline
    price table; calls to a model without a known price count in tokens and turns only."""

    model_config = ConfigDict(extra="forbid")

    prompt_cost_usd: float | None = Field(default=None, gt=0)
    """One prompt (or `-p` run): dollars, every model call of it (agents, reviewers, hooks)."""
    prompt_tokens: int | None = Field(default=None, gt=0)
    """One prompt: prompt plus completion tokens."""
    prompt_turns: int | None = Field(default=None, gt=0)
    """One prompt: the agents' model calls (the orchestrator's and its specialists')."""
    prompt_time_s: float | None = Field(default=None, gt=0)
    """One prompt: seconds of wall time."""
    session_cost_usd: float | None = Field(default=None, gt=0)
    """One session, resumed ones included: dollars."""
    session_tokens: int | None = Field(default=None, gt=0)
    """One session: tokens."""
    session_turns: int | None = Field(default=None, gt=0)
    """One session: the agents' model calls."""
    day_cost_usd: float | None = Field(default=None, gt=0)
    """Every session of the local calendar day, read from the ledger: dollars."""
    day_tokens: int | None = Field(default=None, gt=0)
    """Every session of the day: tokens."""
    notice_at: float = Field(default=0.8, gt=0, le=1)
    """Share of a limit at which a notice says it is nearly spent (once per limit)."""
