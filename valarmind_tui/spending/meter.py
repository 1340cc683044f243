"""The session's meter: every model call recorded in the ledger, the budgets checked.

    spending = session.spending
    spending.open_scope("goal", BudgetLimits(cost_usd=2.0, time_s=1800))
    spending.set_round(3)            # later calls carry round 3 in the ledger
    stop = spending.check()          # a BudgetStop, or None while every budget holds
    spending.close_scope("goal")

The Session opens the `prompt` scope for each prompt (the `--max-*` flags, `[budget] prompt_*`)
and ends it when the prompt ends (`end_scope`: shown, its clock stopped, stopping nothing);
the `session` and `day` scopes always hold (`[budget] session_*`, `day_*`; the day's spending is
read from the ledger across every session). An agent's next model call is refused while
`check()` finds a spent budget (metered.py), so a run stops within one model call of a limit.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from valarmind_tui.settings.budget import BudgetSettings
from valarmind_tui.spending.limits import (
    MEASURES,
    BudgetLimits,
    BudgetStop,
    Gauge,
    day_limits,
    prompt_limits,
    session_limits,
)
from valarmind_tui.store.ledger import LedgerEntry, Spend, Tally
from valarmind_tui.store.sessions import SessionStore


@dataclass
class _Scope:
    limits: BudgetLimits
    started: float
    """time.monotonic() when it opened."""
    spent: Tally = field(default_factory=Tally)
    ended: float | None = None
    """time.monotonic() when its run ended: shown, its clock stopped, never a stop again."""


def _measure(tally: Tally, measure: str) -> float:
    if measure == "cost":
        return tally.priced_cost_usd
    if measure == "tokens":
        return tally.tokens
    return tally.agent_calls


def _fixed(tally: Tally) -> Callable[[], Tally]:
    return lambda: tally


def start_of_day(now: float) -> float:
    """Local midnight before `now` (a time.time())."""
    day = datetime.datetime.fromtimestamp(now).date()
    return datetime.datetime.combine(day, datetime.time()).timestamp()


class Spending:
    """One session's model calls and budgets; see the module docstring."""

    def __init__(self, budget: BudgetSettings | None = None, *,
                 clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget or BudgetSettings()
        self._clock = clock
        self._monotonic = monotonic
        self.store: SessionStore | None = None
        self.session_id: str | None = None
        self.notify: Callable[[str], None] | None = None
        """Told once per limit when its `notice_at` share is spent, and once when a cost limit
        meets a model without a known price."""
        self.round: int | None = None
        self.entries: list[LedgerEntry] = []
        """This process's calls of the session, oldest first."""
        self._session = Tally()
        """The session's spending: a resumed session's earlier runs, then each call."""
        self._day: tuple[float, Tally] | None = None
        """(local midnight, every session's spending since then): read from the ledger when a
        prompt begins (or the day changes), then each call of this session added."""
        self._scopes: dict[str, _Scope] = {}
        self._told: set[tuple[str, str]] = set()

    # -- wiring ---------------------------------------------------------------------------
    def keep_in(self, store: SessionStore | None, session_id: str | None) -> None:
        """Record into `store` under `session_id` (a resumed session's spending counts)."""
        self.store, self.session_id = store, session_id
        if store is not None and session_id is not None:
            self._session = store.spent(session_id)
        self._day = None

    # -- what a runner calls --------------------------------------------------------------
    def set_round(self, round_: int | None) -> None:
        """Later calls belong to this goal round in the ledger (None: to no round)."""
        self.round = round_

    def open_scope(self, name: str, limits: BudgetLimits) -> None:
        """Count from now against `limits` as `name` (`prompt`, `goal`...), until closed; a
        scope of that name already open starts again."""
        self._scopes[name] = _Scope(limits, self._monotonic())
        self._told = {told for told in self._told if told[0] != name}

    def close_scope(self, name: str) -> None:
        self._scopes.pop(name, None)

    def end_scope(self, name: str) -> None:
        """The run `name` counted is over: its gauges stay (spent / limit, its clock stopped)
        and calls made after it (a command between prompts) are shown in it, but it stops
        nothing any more; the session's and the day's budgets still do."""
        scope = self._scopes.get(name)
        if scope is not None and scope.ended is None:
            scope.ended = self._monotonic()

    def begin_prompt(self) -> None:
        """The Session, before each prompt: the `prompt` scope with `[budget] prompt_*`."""
        self.open_scope("prompt", prompt_limits(self.budget))
        self._day = None  # other sessions may have spent meanwhile: read the day again
    def time_left(self) -> float | None:
        """Seconds until the first running time budget is spent (None: none runs)."""
        now = self._monotonic()
        left = [scope.limits.time_s - (now - scope.started) for scope in self._scopes.values()
                if scope.ended is None and scope.limits.time_s is not None]
        return min(left) if left else None

    def check(self) -> BudgetStop | None:
        """The first spent budget, or None; tells the nearly spent ones (once each)."""
        gauges = self.gauges(live=True)
        self._tell(gauges)
        spent = next((g for g in gauges if g.spent_out), None)
        return BudgetStop(spent) if spent is not None else None

    # -- recording ------------------------------------------------------------------------
    def record(self, entry: LedgerEntry) -> LedgerEntry:
        """One model call: stamped with the time, the session and the round, kept, written to
        the ledger, counted in every open scope."""
        entry = replace(entry, at=self._clock(), session_id=self.session_id or "",
                        round=self.round if entry.round is None else entry.round)
        self.entries.append(entry)
        if self.store is not None and self.session_id is not None:
            self.store.record_call(entry)
        self._session.add(entry)
        if self._day is not None:
            self._day[1].add(entry)
        for scope in self._scopes.values():
            scope.spent.add(entry)
        if entry.cost_usd is None and self._cost_limited() and ("", "price") not in self._told:
            self._told.add(("", "price"))
            self._say(f"{entry.model} has no known price (LiteLLM's offline table), so its "
                      "calls count in the token and turn budgets only, not the cost budget.")
        self._tell(self.gauges(live=True))
        return entry

    # -- reading --------------------------------------------------------------------------
    def session_spent(self) -> Tally:
        """The session's spending, a resumed session's earlier runs included."""
        return replace(self._session)

    def day_spent(self) -> Tally:
        """Every session's spending since local midnight: the ledger's sum (one SQL query,
        made again when a prompt begins or the day changes), plus this session's calls since.
        Not stored: this process's calls of the day."""
        since = start_of_day(self._clock())
        if self._day is None or self._day[0] != since:
            if self.store is not None and self.session_id is not None:
                day = self.store.spent(since=since)
            else:
                day = Tally()
                for entry in self.entries:
                    if entry.at >= since:
                        day.add(entry)
            self._day = (since, day)
        return replace(self._day[1])

    def gauges(self, *, live: bool = False) -> list[Gauge]:
        """Every limit that is set, with what its scope spent (`live`: not the ended scopes)."""
        found: list[Gauge] = []
        now = self._monotonic()
        tallies: list[tuple[str, BudgetLimits, Callable[[], Tally], float | None]] = [
            (name, scope.limits, _fixed(scope.spent), (scope.ended or now) - scope.started)
            for name, scope in self._scopes.items() if not (live and scope.ended)]
        tallies.append(("session", session_limits(self.budget), self.session_spent, None))
        tallies.append(("day", day_limits(self.budget), self.day_spent, None))
        for name, limits, tally_of, elapsed in tallies:
            if not limits.any:
                continue
            tally = tally_of()  # the day's is a query: asked only when a day limit is set
            for measure in MEASURES:
                limit = limits.of(measure)
                if limit is None:
                    continue
                spent = (elapsed or 0.0) if measure == "time" else _measure(tally, measure)
                found.append(Gauge(name, measure, float(spent), float(limit)))
        return found

    def status_line(self) -> str:
        """Spent / budget of each limit, for a status bar: `prompt $0.42/$1.00 · day ...`;
        "" when no limit is set."""
        return " · ".join(f"{g.scope} {g.amounts()}" for g in self.gauges())

    def spend(self) -> Spend:
        """The session's ledger, whole and broken down (a resumed session's earlier calls
        included when it is stored)."""
        if self.store is not None and self.session_id is not None:
            return Spend.of(self.store.calls(self.session_id))
        return Spend.of(self.entries)

    # -- notices --------------------------------------------------------------------------
    def _cost_limited(self) -> bool:
        return any(g.measure == "cost" for g in self.gauges(live=True))

    def _tell(self, gauges: list[Gauge]) -> None:
        for g in gauges:
            key = (g.scope, g.measure)
            if key in self._told or g.spent_out or g.share < self.budget.notice_at - 1e-9:
                continue
            self._told.add(key)
            self._say(f"{g.share:.0%} of the {g.scope}'s {g.measure} budget is spent "
                      f"({g.amounts()}); the run stops when it is all spent.")

    def _say(self, text: str) -> None:
        if self.notify is not None:
            self.notify(text)
