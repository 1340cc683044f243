"""Closing a turn that a killed process left open, when its session is resumed."""

from __future__ import annotations

from typing import Any

INTERRUPTED = "[interrupted: ValarMind stopped before this finished]"


def close_interrupted(history: list[dict[str, Any]], streamed: str) -> list[dict[str, Any]]:
    """The messages that close a turn a killed process left open: a result for every tool call
    without one, then the streamed text of the unfinished answer."""
    added: list[dict[str, Any]] = []
    last_call = next((m for m in reversed(history) if m.get("role") == "assistant"), None)
    if last_call and last_call.get("tool_calls"):
        answered = {m.get("tool_call_id") for m in history if m.get("role") == "tool"}
        added += [{"role": "tool", "tool_call_id": c["id"], "content": INTERRUPTED}
                  for c in last_call["tool_calls"] if c.get("id") not in answered]
    if streamed:
        added.append({"role": "assistant", "content": f"{streamed}\n\n{INTERRUPTED}"})
    return added
