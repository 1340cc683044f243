"""The project tools of `valarmind mcp serve` (review, search, init, qa) over the real modules.

Each gathers its data with the project's own code (run_review, the grep/glob tools,
generate_valarmind_md, detect_commands) and, when a model thinks (`call.provider`), hands it to
the matching specialist agent; with no model the data itself is the answer (raw mode).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import asdict
from typing import Any

from valarmind_tui.agents.delegate import DelegationResult
from valarmind_tui.agents.loop import run_gated
from valarmind_tui.agents.results import result_dict
from valarmind_tui.composition import build_gate
from valarmind_tui.errors import DenialEscalated
from valarmind_tui.events import ToolCallFinished, ToolCallStarted
from valarmind_tui.mcp.server_think import Answer, Call
from valarmind_tui.safety.approval import PermissionMode, PolicyApprover
from valarmind_tui.safety.gate import PermissionGate
from valarmind_tui.safety.permissions import AgentPermissions
from valarmind_tui.tools.base import Tool, ToolContext, ToolResult

MAX_JSON_CHARS = 100_000
QA_OUTPUT_CHARS = 8_000
_ids = itertools.count(1)


def dump(value: Any, limit: int = MAX_JSON_CHARS) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, default=str)[:limit]


async def run_tool(
    call: Call, tool: Tool, arguments: dict[str, Any], *, gate: PermissionGate | None = None,
    permissions: AgentPermissions | None = None,
) -> ToolResult:
    """One built-in tool, through the permission gate (plan mode unless given), published as
    ToolCallStarted/Finished like an agent's call."""
    gate = gate or build_gate(call.settings, call.root, PolicyApprover(), call.bus,
                              mode=PermissionMode.PLAN, sandbox=call.sandbox)
    ctx = ToolContext(project_root=call.root, agent_id="mcp", sandbox=call.sandbox)
    call_id = f"mcp-{next(_ids)}"
    call.bus.publish(ToolCallStarted(agent_id="mcp", call_id=call_id, name=tool.name,
                                     arguments=arguments))
    params = tool.parse(arguments)
    try:
        status, result = await run_gated(tool, params, ctx, gate,
                                         permissions or AgentPermissions())
    except DenialEscalated as exc:
        status, result = "error", ToolResult.error(str(exc))
    call.bus.publish(ToolCallFinished(agent_id="mcp", call_id=call_id, name=tool.name,
                                      status=status, output=result.output[:2000]))
    return result


def from_delegation(result: DelegationResult, summary: str = "") -> Answer:
    """A specialist's run as the tool's answer (its validated result when it has one)."""
    if result.status in ("failed", "cancelled", "timeout", "escalated"):
        why = result.problem or result.text or "no output"
        return Answer(result.text, error=f"the {result.agent} agent {result.status}: {why}")
    data: Any = result_dict(result.result) if result.result is not None else result.text
    extra: dict[str, Any] = {"status": result.status}
    if result.problem:
        extra["problem"] = result.problem
    return Answer(result.text, data, summary, extra)


# -- review -------------------------------------------------------------------------------
async def review(call: Call) -> Answer:
    """run_review: the diff and the linters' findings; the review agent when a model thinks."""
    from valarmind_tui.agents.review import run_review

    target = call.args.get("target")
    if target is not None and not isinstance(target, str):
        raise ValueError("target must be a string: --staged, a ref or a range A..B")
    paths = call.args.get("paths") or []
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ValueError("paths must be a list of project file paths")
    delegator = call.delegator() if call.provider is not None else None
    report = await run_review(call.root, [target] if target else [], paths=paths,
                              delegator=delegator, settings=call.settings, bus=call.bus,
                              sandbox=call.sandbox)
    call.tools_used += ["git_diff", *report.linters]
    static = [f for f in report.findings if f.source != "model"]
    summary = (f"Review of {report.target}: {len(report.files)} file(s), {len(static)} static "
               f"finding(s) ({', '.join(report.linters) or 'no linter ran'})")
    data = report.to_dict()
    text = report.to_markdown()
    if call.provider is None:
        data["diff"] = report.diff
        if report.diff:
            text += f"\n\n```diff\n{report.diff[:MAX_JSON_CHARS]}\n```"
    return Answer(text, data, summary)


# -- search -------------------------------------------------------------------------------
async def gather_search(call: Call) -> dict[str, Any]:
    """Paths containing the query and lines matching it, by the glob and grep tools."""
    from valarmind_tui.tools.glob import Glob
    from valarmind_tui.tools.grep import Grep

    query = str(call.args["query"])
    limit = int(call.args.get("max_results") or 50)
    pattern = query
    try:
        re.compile(query)
    except re.error:  # not a regular expression: search for the text
        pattern = re.escape(query)
    grep_args: dict[str, Any] = {"pattern": pattern, "ignore_case": True}
    if call.args.get("glob"):
        grep_args["glob"] = call.args["glob"]
    found = await run_tool(call, Grep(), grep_args)
    if found.is_error:
        raise ValueError(found.output)
    listed = await run_tool(call, Glob(), {"pattern": call.args.get("glob") or "**/*"})
    files = (listed.data or {}).get("files", []) if not listed.is_error else []
    matches = (found.data or {}).get("matches", [])
    return {
        "query": query,
        "files": [f for f in files if query.lower() in f.lower()][:limit],
        "matches": [{"path": p, "line": n, "text": t.strip()[:200]} for p, n, t in matches][:limit],
        "total_matches": (found.data or {}).get("total", 0),
    }


async def search(call: Call) -> Answer:
    raw = await gather_search(call)
    summary = (f"{len(raw['files'])} file name(s) and {raw['total_matches']} line(s) match "
               f"{raw['query']!r}")
    if call.provider is None:
        return Answer(f"{summary}\n\n{dump(raw)}", raw, summary)
    result = await call.delegator().run(
        "search", f"Find in the project: {raw['query']}",
        context=f"A first grep/glob pass found:\n{dump(raw, 20_000)}")
    return from_delegation(result, summary)


# -- init ---------------------------------------------------------------------------------
async def init(call: Call) -> Answer:
    """VALARMIND.md from the project's signals (a deterministic draft without a model); written
    only when asked (the server refuses `write` without a permission mode that allows it)."""
    from valarmind_tui.agents.init_run import init_valarmind_md
    from valarmind_tui.context.init_agent import write_valarmind_md

    delegator = call.delegator() if call.provider is not None else None
    result = await init_valarmind_md(call.root, delegator)
    data = {"draft": result.text, "mode": result.mode, "tokens": result.tokens,
            "diff_vs_existing": result.diff_vs_existing,
            "drafted_without_model": result.drafted_without_model,
            "warnings": result.warnings, "kept_edited": result.kept_edited,
            "missing": result.missing}
    how = "without a model" if result.drafted_without_model else "by the model"
    summary = f"VALARMIND.md ({result.mode}), {result.tokens} tokens, drafted {how}"
    extra: dict[str, Any] = {}
    if call.args.get("write"):
        write_valarmind_md(call.root, result.text)
        extra["written"] = result.path
    return Answer(result.text, data, summary, extra)


# -- qa -----------------------------------------------------------------------------------
async def qa(call: Call) -> Answer:
    """The project's detected commands; with `run` (allowed by the server's mode) their results
    by the bash tool; with a model, the QA agent's verdict on them."""
    from valarmind_tui.context.project_commands import detect_commands

    commands = detect_commands(call.root)
    raw: dict[str, Any] = {"commands": [asdict(c) for c in commands]}
    if call.args.get("run") and commands:
        raw["results"] = await _run_commands(call, [c.command for c in commands])
    summary = f"{len(commands)} command(s) detected"
    if "results" in raw:
        failed = [r["command"] for r in raw["results"] if not r["passed"]]
        summary += f"; {len(failed)} failed" + (f": {', '.join(failed)}" if failed else "")
    if call.provider is None:
        return Answer(f"{summary}\n\n{dump(raw)}", raw, summary)
    ran = "were run by ValarMind" if "results" in raw else "were NOT run (not allowed here)"
    task = (f"The project's detected commands {ran}; the data follows. Do not run anything: "
            f"judge from it (read files when that helps) and give your verdict.\n\n{dump(raw)}")
    return from_delegation(await call.delegator().run("qa", task), summary)


async def _run_commands(call: Call, commands: list[str]) -> list[dict[str, Any]]:
    from valarmind_tui.tools.bash import Bash

    mode = PermissionMode(call.explicit_mode or PermissionMode.DEFAULT)
    gate = build_gate(call.settings, call.root, PolicyApprover(allow_execute=True), call.bus,
                      mode=mode, sandbox=call.sandbox)
    only_these = AgentPermissions(execute=True, execute_allow=tuple(commands))
    results = []
    for command in commands:
        out = await run_tool(call, Bash(sandbox=call.sandbox), {"command": command}, gate=gate,
                             permissions=only_these)
        results.append({"command": command, "passed": not out.is_error,
                        "output": out.output[-QA_OUTPUT_CHARS:]})
    return results
