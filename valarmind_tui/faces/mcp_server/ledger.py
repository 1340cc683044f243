"""The MCP server face's model calls in the person's ledger: one stored session per server
process (`valarmind cost --session ID`, /cost of no face), the person's `[budget]` applying to
each call as to a prompt. Only our own model is recorded: in sampling mode the client's model
thinks, and the client does not say what it spent."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.providers.base import Provider
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.settings.config import Settings
from valarmind_tui.spending.meter import Spending
from valarmind_tui.spending.metered import metered_by
from valarmind_tui.store.sessions import SessionStore


class ServerLedger:
    """The server's Spending, its store session opened on the first call with a model."""

    def __init__(self, settings: Settings, root: Path) -> None:
        self.settings = settings
        self.root = root
        self.spending = Spending(settings.budget)
        self._opened = False

    def wrap(self, provider: Provider) -> Provider:
        """`provider`, recording into the ledger (and refusing calls once a budget is spent)."""
        if not self._opened:
            self._opened = True
            store = SessionStore(user_data_dir() / "sessions.db")
            session_id = store.create(self.root, self.settings.resolve_model())
            store.name_session(session_id, "valarmind mcp serve")
            self.spending.keep_in(store, session_id)
        return metered_by(self.spending)(provider)

    @contextmanager
    def call(self, tool: str) -> Iterator[None]:
        """One tool call of a client: its model calls are `server` calls of that tool, counted
        against `[budget] prompt_*` like a prompt."""
        self.spending.begin_prompt()
        with calls_for(kind="server", agent="mcp", tool=tool):
            yield
