"""What /cost and `valarmind cost` say of a ledger: the totals, the budgets, then each
breakdown (by agent, tool, MCP server, reviewer, round...)."""

from __future__ import annotations

from valarmind_tui.spending.limits import Gauge
from valarmind_tui.store.ledger import Spend, Tally

PRICES = "LiteLLM's offline price table"

SHOWN = (("agent", "By agent (its own turns)"), ("tool", "By tool (the calls a tool call caused)"),
         ("mcp_server", "By MCP server"), ("reviewer", "By reviewer"), ("skill", "By skill"),
         ("round", "By round"), ("kind", "By kind"), ("model", "By model"))


def cost_text(tally: Tally) -> str:
    """`$0.0123`, `$0.0123 + 2 calls at unknown price`, or `unknown price`."""
    if tally.cost_usd is None:
        return "unknown price" if tally.calls else "$0.0000"
    text = f"${tally.cost_usd:.4f}"
    if tally.unpriced_calls:
        plural = "s" if tally.unpriced_calls > 1 else ""
        text += f" + {tally.unpriced_calls} call{plural} at unknown price"
    return text


def tally_line(tally: Tally) -> str:
    cached = f" ({tally.cached_tokens:,} cached)" if tally.cached_tokens else ""
    reasoning = f" ({tally.reasoning_tokens:,} reasoning)" if tally.reasoning_tokens else ""
    plural = "" if tally.calls == 1 else "s"
    return (f"{tally.calls} call{plural}, {tally.prompt_tokens:,} in{cached}, "
            f"{tally.completion_tokens:,} out{reasoning}, {cost_text(tally)}")


def describe(spend: Spend, gauges: list[Gauge], title: str = "This session") -> str:
    """The ledger as /cost shows it."""
    t = spend.total
    lines = [f"{title}: {t.calls} model calls. Tokens: {t.prompt_tokens:,} in, "
             f"{t.completion_tokens:,} out. Cost: {cost_text(t)} ({PRICES})."]
    if t.cached_tokens or t.reasoning_tokens:
        lines.append(f"Of those, {t.cached_tokens:,} prompt tokens from the cache, "
                     f"{t.reasoning_tokens:,} completion tokens reasoning.")
    if gauges:
        lines.append("Budget: " + " · ".join(f"{g.scope} {g.measure} {g.amounts()}"
                                              for g in gauges))
    for name, heading in SHOWN:
        groups = spend.by.get(name) or {}
        if not groups or name in ("kind", "model") and len(groups) < 2:
            continue
        lines.append(f"\n{heading}:")
        lines += [f"- {key}: {tally_line(tally)}" for key, tally in groups.items()]
    return "\n".join(lines)
