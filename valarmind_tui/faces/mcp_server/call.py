"""One tool call of `valarmind mcp serve`, from validated arguments to structuredContent.

The steps (tools.py): gather the data with no model, then think with the chosen model, or
present the data as it is. When the model (ours, or the client's through sampling) fails, the
raw answer is returned with `mode: "raw"` and a `fallback_reason`: gathered data is never lost.
The whole call runs under the server's time limit; when it runs out the result is an error that
still carries what was gathered so far.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from valarmind_tui.core.events import RunStatus
from valarmind_tui.faces.mcp_server.data import dump
from valarmind_tui.faces.mcp_server.reviews import with_reviewers
from valarmind_tui.faces.mcp_server.think import Answer, Call
from valarmind_tui.faces.mcp_server.tools import ServerTool
from valarmind_tui.faces.mcp_server.usage import NO_MODEL_USAGE, MeteredProvider


@dataclass
class Finished:
    """How the steps ended."""

    answer: Answer
    mode: str
    stop_reason: str
    fallback_reason: str | None = None


async def run_steps(tool: ServerTool, call: Call, mode: str, note: str | None) -> Finished:
    """gather → think (or present); a failed think falls back to the raw answer."""
    data = await tool.gather(call)
    call.gathered.update(data)
    if call.provider is None:
        return Finished(tool.present(call, data), "raw", "endTurn", note)
    try:
        answer = await tool.think(call, data)
    except Exception as exc:  # the model or the client's sampling failed: the data answers
        metered = call.provider
        failure = metered.failure if isinstance(metered, MeteredProvider) else None
        who = "the client's sampling" if mode == "sampling" else f"own model {call.provider.model}"
        reason = f"{who} failed: {failure or exc}"
        return Finished(tool.present(call, data), "raw", "modelError", reason[:2000])
    return Finished(answer, mode, _stop_reason(call, answer))


def _stop_reason(call: Call, answer: Answer) -> str:
    if answer.extra.get("status") == RunStatus.INCOMPLETE:
        return "maxTurns"
    if isinstance(call.provider, MeteredProvider) and call.provider.hit_token_limit:
        return "maxTokens"
    return "endTurn"


def _usage(call: Call) -> dict[str, Any]:
    if isinstance(call.provider, MeteredProvider):
        return call.provider.usage()
    return dict(NO_MODEL_USAGE)


def _tools(call: Call) -> dict[str, list[str]]:
    """The tools that ran and, apart, those refused (asked for, never run)."""
    return {"tools_executed": sorted(set(call.tools_used)),
            "tools_refused": sorted(set(call.tools_refused))}


def _elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def structured(call: Call, done: Finished, started: float) -> dict[str, Any]:
    """The result's structuredContent (the envelope of schema.output_schema)."""
    answer = done.answer
    out: dict[str, Any] = {
        "mode": done.mode, "summary": answer.summary, "stopReason": done.stop_reason,
        **_tools(call), "execution_time_ms": _elapsed_ms(started),
        **with_reviewers(_usage(call), call.reviewers), **answer.extra,
    }
    if done.mode == "raw":
        out["raw_data"] = answer.data
    else:
        out["result"] = answer.data
        out["llm_model"] = call.provider.model if call.provider else ""
    if done.fallback_reason:
        out["fallback_reason"] = done.fallback_reason
    return out


def timed_out(name: str, call: Call, mode: str, limit_s: float,
              started: float) -> tuple[str, dict[str, Any]]:
    """(text, structuredContent) of a call stopped by the time limit: what it had so far."""
    message = (f"{name}: the time limit of {limit_s:g} s ran out (set [mcp] serve_tool_timeout_s "
               "or --tool-timeout to change it)")
    text = message + (f"; data gathered so far:\n{dump(call.gathered)}" if call.gathered
                      else "; nothing was gathered yet")
    data = {"mode": mode, "summary": message, "stopReason": "timeout", "error": message,
            **_tools(call), "execution_time_ms": _elapsed_ms(started),
            **with_reviewers(_usage(call), call.reviewers), "raw_data": dict(call.gathered)}
    return text, data


async def run_with_limit(tool: ServerTool, call: Call, mode: str, note: str | None,
                         limit_s: float) -> Finished | None:
    """The steps under the time limit; None when it ran out."""
    try:
        return await asyncio.wait_for(run_steps(tool, call, mode, note), limit_s)
    except TimeoutError:
        return None
