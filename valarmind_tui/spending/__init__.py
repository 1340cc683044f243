"""Spending: the ledger of every model call of a session and the budgets that stop a run.

`Spending` (meter.py) is the session's meter: every model call is recorded through
`LedgeredProvider` (metered.py) into the store's ledger (store/ledger.py); `check()` says which
budget is spent, and the provider raises BudgetExhausted instead of an agent's next call.
`report.py` is what /cost and `valarmind cost` say.

May import: `providers`, `store`, `settings`, `core`. Start reading at meter.py.
"""
