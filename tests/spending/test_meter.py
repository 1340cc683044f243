"""The meter on its own (a real store, no model): scopes, the day across sessions, notices,
and who a call is for."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.providers.call_origin import calls_for, current_origin
from valarmind_tui.settings.budget import BudgetSettings
from valarmind_tui.spending.limits import BudgetLimits
from valarmind_tui.spending.meter import Spending
from valarmind_tui.store.ledger import LedgerEntry
from valarmind_tui.store.sessions import SessionStore


def call(tokens: int = 100, cost: float | None = 0.01, model: str = "openai/gpt-4o-mini",
         kind: str = "agent") -> LedgerEntry:
    return LedgerEntry(kind=kind, agent="main", model=model, prompt_tokens=tokens,
                       completion_tokens=0, cost_usd=cost)


def test_a_scope_stops_at_its_limit_and_tells_80_percent_once() -> None:
    told: list[str] = []
    spending = Spending()
    spending.notify = told.append
    spending.open_scope("goal", BudgetLimits(cost_usd=0.05))
    for _ in range(3):
        spending.record(call())
    assert spending.check() is None and told == []
    spending.record(call())  # 80%
    spending.record(call(cost=0.005))  # 90%: not told again
    assert len(told) == 1 and "80% of the goal's cost budget" in told[0]
    assert spending.check() is None
    spending.record(call())
    stop = spending.check()
    assert stop is not None and (stop.scope, stop.measure) == ("goal", "cost")
    assert "goal's cost budget is spent ($0.0550/$0.0500)" in stop.message()
    spending.close_scope("goal")
    assert spending.check() is None


def test_turns_count_the_agents_calls_only() -> None:
    spending = Spending()
    spending.open_scope("prompt", BudgetLimits(turns=2))
    spending.record(call(kind="reviewer"))
    spending.record(call(kind="hook"))
    spending.record(call())
    assert spending.check() is None
    spending.record(call())
    assert spending.check() is not None


def test_an_unknown_price_is_said_and_never_counted_as_zero() -> None:
    told: list[str] = []
    spending = Spending()
    spending.notify = told.append
    spending.open_scope("prompt", BudgetLimits(cost_usd=1.0))
    spending.record(call(cost=None, model="openai/fake-model"))
    spending.record(call(cost=None, model="openai/fake-model"))
    assert told == ["openai/fake-model has no known price (LiteLLM's offline table), so its "
                    "calls count in the token and turn budgets only, not the cost budget."]
    spend = spending.spend()
    assert spend.total.cost_usd is None and spend.total.unpriced_calls == 2
    assert spending.status_line() == "prompt $0.00/$1.00"


def test_the_day_is_read_from_the_ledger_across_sessions(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    budget = BudgetSettings(day_tokens=250, session_tokens=1000)
    first = Spending(budget)
    first.keep_in(store, store.create(tmp_path, "m"))
    first.record(call(tokens=200))
    second = Spending(budget)
    second.keep_in(store, store.create(tmp_path, "m"))
    assert second.check() is None
    second.record(call(tokens=60))
    stop = second.check()
    assert stop is not None and (stop.scope, stop.measure) == ("day", "tokens")
    assert second.session_spent().tokens == 60  # the session's own


def test_a_resumed_session_counts_what_it_spent_before(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    session_id = store.create(tmp_path, "m")
    before = Spending(BudgetSettings(session_tokens=300))
    before.keep_in(store, session_id)
    before.record(call(tokens=200))
    after = Spending(BudgetSettings(session_tokens=300))
    after.keep_in(store, session_id)
    after.record(call(tokens=100))
    assert after.check() is not None
    assert after.spend().total.calls == 2


def test_set_round_marks_later_calls(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    spending = Spending()
    spending.keep_in(store, store.create(tmp_path, "m"))
    spending.record(call())
    spending.set_round(2)
    spending.record(call())
    spending.set_round(None)
    spending.record(call())
    assert [e.round for e in store.calls()] == [None, 2, None]
    assert list(spending.spend().by["round"]) == ["2"]


def test_an_mcp_tool_call_names_its_server() -> None:
    with calls_for(kind="agent", tool_call="c1", tool="mcp__github__search_issues"):
        origin = current_origin()
    assert (origin.mcp_server, origin.tool_call) == ("github", "c1")
    assert current_origin().tool is None


def test_an_ended_prompt_stops_nothing_and_its_clock_stops() -> None:
    """Between prompts (a /review, idle time) only the session's and the day's limits hold."""
    now = [100.0]
    spending = Spending(BudgetSettings(prompt_tokens=150, prompt_time_s=60),
                        monotonic=lambda: now[0])
    spending.begin_prompt()
    spending.record(call(tokens=200))
    assert spending.check() is not None
    now[0] += 10
    spending.end_scope("prompt")
    now[0] += 3600
    assert spending.check() is None
    assert spending.status_line() == "prompt 200 tokens/150 tokens · prompt 10 s/60 s"
    spending.begin_prompt()
    assert spending.status_line() == "prompt 0 tokens/150 tokens · prompt 0 s/60 s"
