"""What the ledger adds to each model call (target < 1 ms): one row written to a real session
store and every budget checked, with a session, a day (one SQL sum over the ledger) and a
prompt limit set, after 5,000 earlier calls of other sessions that day."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from valarmind_tui.settings.budget import BudgetSettings
from valarmind_tui.spending.meter import Spending
from valarmind_tui.store.ledger import LedgerEntry
from valarmind_tui.store.sessions import SessionStore

EARLIER, CALLS = 5_000, 500


def _entry() -> LedgerEntry:
    return LedgerEntry(kind="agent", agent="main", model="openai/gpt-4o-mini",
                       prompt_tokens=1200, completion_tokens=80, cost_usd=0.0002,
                       cached_tokens=512, tool_call="call_1", tool="read_file")


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "sessions.db")
        earlier = Spending()
        earlier.keep_in(store, store.create(Path(tmp), "m"))
        for _ in range(EARLIER):
            earlier.record(_entry())
        budget = BudgetSettings(prompt_tokens=10**12, session_cost_usd=10**6, day_cost_usd=10**6)
        spending = Spending(budget)
        spending.keep_in(store, store.create(Path(tmp), "m"))
        spending.begin_prompt()
        start = time.perf_counter()
        for _ in range(CALLS):
            assert spending.check() is None
            spending.record(_entry())
        per_call = (time.perf_counter() - start) / CALLS * 1000
        store.close()
    return [{"name": "ledger: check + record per model call", "value": per_call, "unit": "ms",
             "target": "< 1"}]


if __name__ == "__main__":
    for row in run():
        print(row)
