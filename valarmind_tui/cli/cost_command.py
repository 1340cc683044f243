"""`valarmind cost`: the ledger read from the session store, without starting a session.

    valarmind cost                      the last session of this project
    valarmind cost --session ID         that session
    valarmind cost --since 2026-11-01   every session of every project since that day
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from valarmind_tui.core.errors import UsageError
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.core.visible_text import visible
from valarmind_tui.spending.report import describe
from valarmind_tui.store.ledger import Spend
from valarmind_tui.store.sessions import SessionStore


def since_date(text: str) -> float:
    """`2026-11-28` (local midnight) or `2026-11-28T14:00` as a time.time()."""
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise UsageError(f"--since {text!r}: say a date such as 2026-11-28 or "
                         "2026-11-28T14:00") from None


def run_cost_command(root_id: str, args: argparse.Namespace) -> int:
    """Print the ledger (`--json`: the totals and every breakdown as one object)."""
    since = since_date(args.since) if args.since else None
    store = SessionStore(user_data_dir() / "sessions.db")
    try:
        session_id = args.session
        if session_id in (None, "last") and (session_id == "last" or since is None):
            last = store.list_ids(root_id, limit=1)
            if not last:
                raise UsageError(f"no stored session for {root_id}")
            session_id = last[0]
        elif session_id is not None and session_id not in store.list_ids(None, limit=100_000):
            raise UsageError(f"no stored session {session_id!r}")
        spend = Spend.of(store.calls(session_id, since))
    finally:
        store.close()
    scope = f"Session {session_id}" if session_id else "Every session"
    if since is not None:
        scope += f" since {args.since}"
    if args.json:
        json.dump({"session_id": session_id, "since": args.since, **spend.to_dict()}, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(visible(describe(spend, [], title=scope)))
    return 0
