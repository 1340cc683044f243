"""The project tools of `valarmind mcp serve` (review, search, init, qa) over the real modules.

Each has three steps: `gather` collects its data with the project's own code (run_review, the
grep/glob tools, init_valarmind_md, detect_commands) into `call.gathered`; `think` hands it
to the matching specialist agent when a model thinks; `present` makes the raw answer (raw mode,
and the fallback when the model fails: the gathered data is never lost).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.delegation.delegate import DelegationResult
from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.agents.results import result_dict
from valarmind_tui.core.errors import DenialEscalated
from valarmind_tui.core.events import ToolCallFinished, ToolCallStarted
from valarmind_tui.faces.mcp_server.params import InitParams, QaParams, ReviewParams, SearchParams
from valarmind_tui.faces.mcp_server.think import Answer, Call, ThinkFailed
from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.session.wiring import build_gate
from valarmind_tui.tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from valarmind_tui.agents.review.report import ReviewReport
    from valarmind_tui.context.init.write import InitProposal

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
                              mode=PermissionMode.PLAN, sandbox=call.sandbox,
                              reviewers=call.reviewers)
    ctx = ToolContext(project_root=call.root, agent_id="mcp", sandbox=call.sandbox)
    call_id = f"mcp-{next(_ids)}"
    call.bus.publish(ToolCallStarted(agent_id="mcp", call_id=call_id, name=tool.name,
                                     arguments=arguments))
    params = tool.parse(arguments)
    ran = True
    try:
        status, result = await run_gated(tool, params, ctx, gate,
                                         permissions or AgentPermissions())
    except DenialEscalated as exc:
        status, result, ran = "error", ToolResult.error(str(exc)), False
    call.bus.publish(ToolCallFinished(agent_id="mcp", call_id=call_id, name=tool.name,
                                      status=status, output=result.output[:2000],
                                      ran=ran and status != "denied"))
    return result


def from_delegation(result: DelegationResult, summary: str = "") -> Answer:
    """A specialist's run as the tool's answer (its validated result when it has one); a run
    that did not finish raises ThinkFailed so the raw data answers instead."""
    if result.ended_early:
        why = result.problem or result.text or "no output"
        raise ThinkFailed(f"the {result.agent} agent {result.status}: {why}")
    data: Any = result_dict(result.result) if result.result is not None else result.text
    extra: dict[str, Any] = {"status": result.status}
    if result.problem:
        extra["problem"] = result.problem
    return Answer(result.text, data, summary, extra)


def raw_answer(summary: str, data: dict[str, Any]) -> Answer:
    return Answer(f"{summary}\n\n{dump(data)}", data, summary)


# -- review -------------------------------------------------------------------------------
async def gather_review(call: Call[ReviewParams]) -> dict[str, Any]:
    """run_review without a model: the diff and the linters' findings."""
    from valarmind_tui.agents.review.runner import run_review

    args = call.args
    report = await run_review(call.root, [args.target] if args.target else [], paths=args.paths,
                              settings=call.settings, bus=call.bus, sandbox=call.sandbox)
    call.tools_used += ["git_diff", *report.linters]
    call.scratch["report"] = report
    return {**report.to_dict(), "diff": report.diff}


def _review_summary(report: ReviewReport) -> str:
    static = [f for f in report.findings if f.source != "model"]
    return (f"Review of {report.target}: {len(report.files)} file(s), {len(static)} static "
            f"finding(s) ({', '.join(report.linters) or 'no linter ran'})")


def present_review(call: Call, data: dict[str, Any]) -> Answer:
    """The report as it is now (after a failed model review, with its note on why)."""
    report = call.scratch["report"]
    text = report.to_markdown()
    if report.diff:
        text += f"\n\n```diff\n{report.diff[:MAX_JSON_CHARS]}\n```"
    return Answer(text, {**report.to_dict(), "diff": report.diff}, _review_summary(report))


async def think_review(call: Call, data: dict[str, Any]) -> Answer:
    """The review agent over the same report (the static findings are its input)."""
    from valarmind_tui.agents.review.runner import add_model_review

    report = call.scratch["report"]
    if not report.files:
        return present_review(call, data)
    await add_model_review(report, call.delegator())
    if report.result is None:
        raise ThinkFailed(report.notes[-1] if report.notes else "the review agent failed")
    return Answer(report.to_markdown(), report.to_dict(), _review_summary(report))


# -- search -------------------------------------------------------------------------------
async def gather_search(call: Call[SearchParams]) -> dict[str, Any]:
    """Paths containing the query and lines matching it, by the glob and grep tools."""
    from valarmind_tui.tools.files.glob import Glob
    from valarmind_tui.tools.files.grep import Grep

    query, limit = call.args.query, call.args.max_results
    pattern = query
    try:
        re.compile(query)
    except re.error:  # not a regular expression: search for the text
        pattern = re.escape(query)
    grep_args: dict[str, Any] = {"pattern": pattern, "ignore_case": True}
    if call.args.glob:
        grep_args["glob"] = call.args.glob
    call.gathered["query"] = query
    found = await run_tool(call, Grep(), grep_args)
    if found.is_error:
        raise ValueError(found.output)
    matches = (found.data or {}).get("matches", [])
    call.gathered["matches"] = [{"path": p, "line": n, "text": t.strip()[:200]}
                                for p, n, t in matches][:limit]
    call.gathered["total_matches"] = (found.data or {}).get("total", 0)
    listed = await run_tool(call, Glob(), {"pattern": call.args.glob or "**/*"})
    files = (listed.data or {}).get("files", []) if not listed.is_error else []
    call.gathered["files"] = [f for f in files if query.lower() in f.lower()][:limit]
    return call.gathered


def _search_summary(data: dict[str, Any]) -> str:
    return (f"{len(data['files'])} file name(s) and {data['total_matches']} line(s) match "
            f"{data['query']!r}")


def present_search(call: Call, data: dict[str, Any]) -> Answer:
    return raw_answer(_search_summary(data), data)


async def think_search(call: Call, data: dict[str, Any]) -> Answer:
    result = await call.delegator().run(
        "search", f"Find in the project: {data['query']}",
        context=f"A first grep/glob pass found:\n{dump(data, 20_000)}")
    return from_delegation(result, _search_summary(data))


# -- init ---------------------------------------------------------------------------------
def _init_data(result: InitProposal) -> dict[str, Any]:
    return {"draft": result.text, "mode": result.mode, "tokens": result.tokens,
            "diff_vs_existing": result.diff_vs_existing,
            "drafted_without_model": result.drafted_without_model,
            "warnings": list(result.warnings), "kept_edited": list(result.kept_edited),
            "missing": list(result.missing)}


async def gather_init(call: Call) -> dict[str, Any]:
    """The deterministic VALARMIND.md draft from the project's signals (no model)."""
    from valarmind_tui.agents.init_run import init_valarmind_md

    return _init_data(await init_valarmind_md(call.root, None))


def _write_init(call: Call[InitParams], answer: Answer) -> Answer:
    """VALARMIND.md written only when asked (the server refuses `write` without a permission
    mode that allows it)."""
    from valarmind_tui.context.init.write import FILENAME, write_valarmind_md

    if call.args.write:
        write_valarmind_md(call.root, answer.data["draft"])
        answer.extra["written"] = FILENAME
    return answer


def _init_answer(data: dict[str, Any]) -> Answer:
    how = "without a model" if data["drafted_without_model"] else "by the model"
    summary = f"VALARMIND.md ({data['mode']}), {data['tokens']} tokens, drafted {how}"
    return Answer(data["draft"], data, summary)


def present_init(call: Call[InitParams], data: dict[str, Any]) -> Answer:
    return _write_init(call, _init_answer(data))


async def think_init(call: Call[InitParams], data: dict[str, Any]) -> Answer:
    from valarmind_tui.agents.init_run import init_valarmind_md

    result = await init_valarmind_md(call.root, call.delegator())
    if not result.text.strip():
        raise ThinkFailed("the model returned an empty VALARMIND.md")
    return _write_init(call, _init_answer(_init_data(result)))


# -- qa -----------------------------------------------------------------------------------
async def gather_qa(call: Call[QaParams]) -> dict[str, Any]:
    """The project's detected commands; with `run` (allowed by the server's mode) their
    results by the bash tool."""
    from valarmind_tui.context.project_commands import detect_commands

    commands = detect_commands(call.root)
    call.gathered["commands"] = [asdict(c) for c in commands]
    if call.args.run and commands:
        call.gathered["results"] = []
        await _run_commands(call, [c.command for c in commands], call.gathered["results"])
    return call.gathered


def _qa_summary(data: dict[str, Any]) -> str:
    summary = f"{len(data['commands'])} command(s) detected"
    if "results" in data:
        failed = [r["command"] for r in data["results"] if not r["passed"]]
        summary += f"; {len(failed)} failed" + (f": {', '.join(failed)}" if failed else "")
    return summary


def present_qa(call: Call, data: dict[str, Any]) -> Answer:
    return raw_answer(_qa_summary(data), data)


async def think_qa(call: Call, data: dict[str, Any]) -> Answer:
    """The QA agent's verdict on the commands and their results."""
    ran = "were run by ValarMind" if "results" in data else "were NOT run (not allowed here)"
    task = (f"The project's detected commands {ran}; the data follows. Do not run anything: "
            f"judge from it (read files when that helps) and give your verdict.\n\n{dump(data)}")
    return from_delegation(await call.delegator().run("qa", task), _qa_summary(data))


async def _run_commands(call: Call, commands: list[str], results: list[dict[str, Any]]) -> None:
    """Each command by the bash tool; each result is appended as soon as it is known."""
    from valarmind_tui.tools.shell.bash import Bash

    mode = PermissionMode(call.explicit_mode or PermissionMode.DEFAULT)
    gate = build_gate(call.settings, call.root, PolicyApprover(allow_execute=True), call.bus,
                      mode=mode, sandbox=call.sandbox, reviewers=call.reviewers)
    only_these = AgentPermissions(execute=True, execute_allow=tuple(commands))
    for command in commands:
        out = await run_tool(call, Bash(sandbox=call.sandbox), {"command": command}, gate=gate,
                             permissions=only_these)
        results.append({"command": command, "passed": not out.is_error,
                        "output": out.output[-QA_OUTPUT_CHARS:]})
