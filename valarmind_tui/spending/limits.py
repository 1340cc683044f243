"""Budget limits of one scope (a prompt, a goal, the session, the day) and what a stop says."""

from __future__ import annotations

from dataclasses import dataclass

from valarmind_tui.settings.budget import BudgetSettings

MEASURES = ("cost", "tokens", "turns", "time")


@dataclass(frozen=True)
class BudgetLimits:
    """The limits of one scope; None is no limit."""

    cost_usd: float | None = None
    tokens: int | None = None
    turns: int | None = None
    """The agents' model calls (not reviewers', hooks' or sampling's)."""
    time_s: float | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.cost_usd, self.tokens, self.turns, self.time_s))

    def of(self, measure: str) -> float | None:
        return {"cost": self.cost_usd, "tokens": self.tokens, "turns": self.turns,
                "time": self.time_s}[measure]


def prompt_limits(budget: BudgetSettings) -> BudgetLimits:
    return BudgetLimits(budget.prompt_cost_usd, budget.prompt_tokens, budget.prompt_turns,
                        budget.prompt_time_s)


def session_limits(budget: BudgetSettings) -> BudgetLimits:
    return BudgetLimits(budget.session_cost_usd, budget.session_tokens, budget.session_turns)


def day_limits(budget: BudgetSettings) -> BudgetLimits:
    return BudgetLimits(budget.day_cost_usd, budget.day_tokens)


@dataclass(frozen=True)
class Gauge:
    """One limit and what its scope spent of it."""

    scope: str
    """prompt, session, day, or a runner's own (goal)."""
    measure: str
    """cost, tokens, turns or time (MEASURES)."""
    spent: float
    limit: float

    @property
    def share(self) -> float:
        return self.spent / self.limit

    @property
    def spent_out(self) -> bool:
        return self.spent >= self.limit

    def amounts(self) -> str:
        """`$0.81/$1.00`, `8,100/10,000 tokens`, `4/5 turns`, `48/60 s`."""
        return f"{amount(self.measure, self.spent)}/{amount(self.measure, self.limit)}"


@dataclass(frozen=True)
class BudgetStop:
    """The budget that stopped a run (Spending.check)."""

    gauge: Gauge

    @property
    def scope(self) -> str:
        return self.gauge.scope

    @property
    def measure(self) -> str:
        return self.gauge.measure

    def message(self) -> str:
        g = self.gauge
        return (f"The {g.scope}'s {g.measure} budget is spent ({g.amounts()}): stopped before "
                "the next model call. The work so far is kept; resume the session to go on "
                "(raise the limit first: --max-* flags, [budget] in your config).")


def amount(measure: str, value: float) -> str:
    if measure == "cost":
        return f"${value:.2f}" if value >= 0.1 or value == 0 else f"${value:.4f}"
    if measure == "time":
        return f"{value:.0f} s"
    unit = "tokens" if measure == "tokens" else "turns"
    return f"{int(value):,} {unit}"
