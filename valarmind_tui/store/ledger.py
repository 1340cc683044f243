"""The ledger: one row per model call, in the session store, and what the rows add up to.

    rows = store.calls(session_id)             # or since=..., across every session
    spend = Spend.of(rows)                     # totals, then by agent, tool, MCP server...

A call's cost is None when LiteLLM's offline price table does not know its model ("unknown
price"): it is counted apart, never as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS model_calls (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    agent TEXT NOT NULL,
    reviewer TEXT,
    delegation TEXT,
    tool_call TEXT,
    tool TEXT,
    mcp_server TEXT,
    skill TEXT,
    round INTEGER,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd REAL,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS model_calls_at ON model_calls (at);
"""

KINDS = ("agent", "reviewer", "hook", "sampling", "compaction", "server", "other")
"""Who made a call: an agent's turn, a model reviewer, a prompt hook, an MCP server's
sampling request, /compact, the MCP server face's agents, anything else of the session."""


@dataclass(frozen=True)
class LedgerEntry:
    """One model call."""

    kind: str
    """One of KINDS."""
    agent: str
    """The agent whose step it was (`main`, a specialist's id such as `code-1`, `mcp`)."""
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    """None: the model has no known price."""
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    reviewer: str | None = None
    """The reviewer's label (`tool-approve`...) for a reviewer's call."""
    delegation: str | None = None
    """The specialist's id when the call was made inside a delegation."""
    tool_call: str | None = None
    """The id of the tool call that caused it (a reviewed call, a delegate call...)."""
    tool: str | None = None
    """That tool call's tool."""
    mcp_server: str | None = None
    skill: str | None = None
    round: int | None = None
    """The goal round it belongs to, when a runner set one (`Spending.set_round`)."""
    at: float = 0.0
    session_id: str = ""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _COLUMNS}


_COLUMNS = ("session_id", "at", "kind", "agent", "reviewer", "delegation", "tool_call", "tool",
            "mcp_server", "skill", "round", "model", "prompt_tokens", "completion_tokens",
            "cached_tokens", "reasoning_tokens", "cost_usd")
INSERT = (f"INSERT INTO model_calls (seq, {', '.join(_COLUMNS)}) VALUES "
          f"(?, {', '.join('?' for _ in _COLUMNS)})")
SELECT = f"SELECT {', '.join(_COLUMNS)} FROM model_calls"


def entry_values(entry: LedgerEntry) -> tuple[Any, ...]:
    return tuple(getattr(entry, name) for name in _COLUMNS)


def entry_from_row(row: tuple[Any, ...]) -> LedgerEntry:
    return LedgerEntry(**dict(zip(_COLUMNS, row, strict=True)))


@dataclass
class Tally:
    """Calls, tokens and cost of a group of calls."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    priced_cost_usd: float = 0.0
    unpriced_calls: int = 0
    """Calls whose model has no known price: their cost is not in `cost_usd`."""
    agent_calls: int = 0
    """Of `calls`, the agents' own turns (what a turn budget counts)."""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost_usd(self) -> float | None:
        """The priced calls' cost; None when no call had a known price."""
        return self.priced_cost_usd if self.calls > self.unpriced_calls else None

    def add(self, entry: LedgerEntry) -> None:
        self.calls += 1
        self.prompt_tokens += entry.prompt_tokens
        self.completion_tokens += entry.completion_tokens
        self.cached_tokens += entry.cached_tokens
        self.reasoning_tokens += entry.reasoning_tokens
        self.agent_calls += entry.kind == "agent"
        if entry.cost_usd is None:
            self.unpriced_calls += 1
        else:
            self.priced_cost_usd += entry.cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cached_tokens": self.cached_tokens,
                "reasoning_tokens": self.reasoning_tokens, "cost_usd": self.cost_usd,
                "unknown_price_calls": self.unpriced_calls}


BREAKDOWNS: dict[str, Callable[[LedgerEntry], str | None]] = {
    "agent": lambda e: e.agent if e.kind == "agent" else None,
    "kind": lambda e: e.kind,
    "tool": lambda e: e.tool,
    "mcp_server": lambda e: e.mcp_server,
    "reviewer": lambda e: e.reviewer,
    "skill": lambda e: e.skill,
    "model": lambda e: e.model,
    "round": lambda e: None if e.round is None else str(e.round),
}
"""Each breakdown's key of a call; None leaves the call out of that breakdown (a call no tool
caused is in no tool's row). By agent: the agents' own turns."""


@dataclass
class Spend:
    """What a set of calls adds up to, whole and by each of BREAKDOWNS."""

    total: Tally = field(default_factory=Tally)
    by: dict[str, dict[str, Tally]] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: Iterable[LedgerEntry]) -> Spend:
        spend = cls(by={name: {} for name in BREAKDOWNS})
        for entry in entries:
            spend.total.add(entry)
            for name, key_of in BREAKDOWNS.items():
                key = key_of(entry)
                if key is not None:
                    spend.by[name].setdefault(key, Tally()).add(entry)
        return spend

    def to_dict(self) -> dict[str, Any]:
        """The totals, then `by_<breakdown>`: {key: tally} (empty breakdowns left out)."""
        out: dict[str, Any] = self.total.to_dict()
        for name, groups in self.by.items():
            if groups:
                out[f"by_{name}"] = {key: tally.to_dict() for key, tally in groups.items()}
        return out
