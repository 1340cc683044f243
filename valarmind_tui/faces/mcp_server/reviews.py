"""The person's model reviewers (`[reviewers.*]` in user config) for one tool call of the server.

The call's gates (the plan-mode gate of its agents and gathering tools, the qa command gate) get
them as a session's gate does (composition.build_stack), with the same limits: under the
server's policy a reviewer may deny or say nothing, never approve (safety.gate_asking). A
reviewer without a model of its own thinks with the call's model (ours or the client's through
sampling); in raw mode there is none, so it gives no verdict and says why. Budgets count per
tool call. What they spent is added to the call's `usage` and split in `reviewers`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ProviderError
from valarmind_tui.oversight import Reviewers
from valarmind_tui.oversight.spending import session_usage
from valarmind_tui.providers.base import Provider, UsageTotals
from valarmind_tui.settings.config import Settings

AGENT_ID = "mcp"
"""The agent id of the server's own tool calls (data.run_tool)."""


def call_reviewers(settings: Settings, provider: Provider | None, bus: EventBus,
                   tool: str, arguments: dict[str, Any], *,
                   wrap: Callable[[Provider], Provider] = lambda p: p) -> Reviewers | None:
    """The configured reviewers for one call, told what the client asked; None when all off.
    `wrap`: what the reviewers' own models are wrapped in (the server's ledger)."""

    def call_model() -> Provider:
        if provider is None:
            raise ProviderError("no model thinks for this call (raw mode); give the reviewer "
                                "a model of its own (`model = ...` in its [reviewers] table)")
        return provider

    reviewers = Reviewers.from_settings(settings, call_model, bus, wrap=wrap)
    if not reviewers.any_enabled:
        return None
    asked = json.dumps(arguments, ensure_ascii=False, default=str)
    reviewers.began(AGENT_ID, f"An MCP client called ValarMind's `{tool}` tool with {asked}")
    return reviewers


def with_reviewers(usage: dict[str, Any], reviewers: Reviewers | None) -> dict[str, Any]:
    """structuredContent's usage plus the reviewers' share (a field the client's model did not
    report stays null), and their `reviewers` split; unchanged when no reviewer ran."""
    spent = session_usage(UsageTotals(), reviewers)
    if not spent.reviewers:
        return {"usage": usage}
    added = spent.totals()
    total = {key: None if value is None else value + added[key] for key, value in usage.items()}
    return {"usage": total, "reviewers": spent.reviewers_dict()}
