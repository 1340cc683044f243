"""The headless faces: `valarmind -p TASK` and seed 000's runner `valarmind run`.

Approval is policy here: reads pass, writes and commands are denied unless the permission mode
allows them (accept-edits lets project writes through the gate, bypass everything).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import IO, Any

from valarmind_tui.commands.router import parse, run
from valarmind_tui.core import startup_gc
from valarmind_tui.core.errors import AuthError, UsageError
from valarmind_tui.core.events import Event, ModelFellBack, Notice, RunStatus, event_to_dict
from valarmind_tui.core.visible_text import visible
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.providers.base import Provider
from valarmind_tui.safety.gate.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    PolicyApprover,
)
from valarmind_tui.session.prompt_run import PromptResult
from valarmind_tui.session.records import offline_help
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session, open_session
from valarmind_tui.settings.config import Settings
from valarmind_tui.tools.common import diff_stats

EXIT_CODES: dict[RunStatus, int] = {
    RunStatus.DONE: 0, RunStatus.FAILED: 1, RunStatus.CANCELLED: 1, RunStatus.INCOMPLETE: 3,
    RunStatus.ESCALATED: 4, RunStatus.UNVERIFIED: 5, RunStatus.REJECTED: 6, RunStatus.TIMEOUT: 7,
    RunStatus.BUDGET: 8}
"""Exit codes of `-p` and `run` by prompt status (the README lists them): unverified, a required
quality gate could not run (QA's command denied...); rejected, a required gate failed; budget,
a budget was spent (docs/budgets.md)."""
GOAL_EXIT_CODES: dict[str, int] = {
    "done": 0, "failed": 1, "cancelled": 1, "budget": 8, "stalled": 9, "weakened": 10,
    "max_rounds": 11}
"""Exit codes of `valarmind goal` and `-p --goal` by goal status (--help and the README list
them)."""
ANSWERED = (RunStatus.DONE, RunStatus.INCOMPLETE, RunStatus.UNVERIFIED, RunStatus.REJECTED)
"""Statuses whose text is an answer, printed on stdout in text mode (the others go to stderr)."""


def run_prompt(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """`valarmind -p TASK`: one task, the answer on stdout."""
    return asyncio.run(_run_prompt(settings, root, args, sys.stdout))


async def _run_prompt(
    settings: Settings, root: Path, args: argparse.Namespace, out: IO[str]
) -> int:
    prompt, output_format = args.prompt, args.output_format
    session = open_session(settings, root, approver=headless_approver(settings, root),
                           resume=args.resume)
    startup_gc.resume()
    if getattr(args, "goal", False):
        return await _run_goal(session, args, out)
    slash = parse(prompt)
    if slash is None:
        _require_model(session)
    writer = _writer(session, output_format, out)
    try:
        await session.start()
        if slash is None:
            result = await session.submit(prompt)
        else:
            ran = await run(session, slash)
            result = PromptResult(RunStatus.DONE if ran.ok else RunStatus.FAILED, ran.text)
        summary = _summary(session, result) if output_format == "json" else {}
    finally:
        await asyncio.sleep(0)
        writer.cancel()
        await session.close()
    if output_format == "text" and result.status in ANSWERED:
        out.write(visible(result.text.rstrip()) + "\n")
    elif output_format == "text":  # stdout carries only an answer; what went wrong goes to stderr
        print(visible(f"valarmind: {result.status}: {result.text.rstrip()}"), file=sys.stderr)
    elif output_format == "json":
        json.dump(summary, out)  # made before the store closed: the ledger is read there
        out.write("\n")
    out.flush()
    return EXIT_CODES.get(result.status, 1)


async def _run_goal(session: Session, args: argparse.Namespace, out: IO[str]) -> int:
    """`valarmind goal` / `-p TEXT --goal`: the goal's rounds, then its answer and which checks
    passed on the final tree; the goal's status as exit code (GOAL_EXIT_CODES)."""
    from valarmind_tui.commands.goal import GoalRequest, run_goal

    _require_model(session)
    request = GoalRequest(args.prompt.strip(), tuple(args.checks or ()), args.approve_weakening,
                          args.max_rounds)
    writer = _writer(session, args.output_format, out)
    try:
        await session.start()
        outcome = await run_goal(session, request)
        spend = _spend_summary(session) if args.output_format == "json" else {}
    finally:
        await asyncio.sleep(0)
        writer.cancel()
        await session.close()
    code = GOAL_EXIT_CODES.get(outcome.status, 1)
    if args.output_format == "json":
        json.dump({"session_id": session.session_id, "status": outcome.status,
                   "exit_code": code, "rounds": outcome.rounds, "result": outcome.answer,
                   "checks": [{"command": c.command, "kind": c.kind, "passed": c.passed,
                               "exit_code": c.exit_code, "round": c.round}
                              for c in outcome.checks],
                   "evidence": [e.to_dict() for e in outcome.evidence],
                   "detail": outcome.detail, "model": session.model,
                   **spend},
                  out)
        out.write("\n")
    elif args.output_format == "text":
        out.write(visible(f"{outcome.answer.rstrip()}\n\n{outcome.footer()}".lstrip()) + "\n")
        if outcome.status != "done":
            print(visible(f"valarmind: goal {outcome.status}: {outcome.detail}"),
                  file=sys.stderr)
    out.flush()
    return code


def headless_approver(settings: Settings, root: Path) -> PolicyApprover:
    """The headless policy; with `allow_project_commands` the project's detected commands pass
    (by argv prefix, one simple command; the sandbox still confines them); with
    `allow_sampling` MCP servers' sampling requests are answered by the model."""
    if not settings.allow_project_commands:
        return PolicyApprover(allow_sampling=settings.allow_sampling)
    from valarmind_tui.context.project_commands import commands_of, detect_commands

    return PolicyApprover(project_commands=commands_of(detect_commands(root)),
                          allow_sampling=settings.allow_sampling)


def _require_model(session: Session) -> Provider:
    """The session's provider; no model or no key is a usage error, raised before any request."""
    if session.offline:  # what was skipped first: an untrusted folder's model, say
        raise UsageError("\n".join([*session.startup_notices, offline_help(headless=True)]))
    try:
        return session.provider()
    except AuthError as exc:
        raise UsageError(str(exc)) from None


def _writer(session: Session, output_format: str, out: IO[str]) -> asyncio.Task[None]:
    """JSONL: every event as it happens, text deltas included; other formats print at the end."""

    def write(event: Event) -> None:
        out.write(json.dumps(event_to_dict(event), default=str) + "\n")
        out.flush()

    def warn(event: Event) -> None:
        match event:
            case Notice(level="warning" | "error"):
                print(visible(f"valarmind: {event.message}"), file=sys.stderr, flush=True)
            case ModelFellBack():  # never a silent downgrade
                print(visible(f"valarmind: {event.failed_model} failed ({event.reason}); "
                              f"{event.model} answers"), file=sys.stderr, flush=True)
            case _:
                pass  # the text and json formats print the answer at the end

    remove = session.bus.add_listener(write if output_format == "jsonl" else warn)

    async def idle() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            remove()

    return asyncio.create_task(idle())


def _summary(session: Session, result: PromptResult) -> dict[str, Any]:
    """The JSON answer: `usage` the ledger's totals (every model call: agents, reviewers,
    hooks), `reviewers` each reviewer's share, `ledger` the whole breakdown, `budget` each set
    limit. A cost is null when no call had a known price."""
    return {
        "session_id": session.session_id,
        "status": result.status,
        "result": result.text,
        "gates": list(result.gates),
        "model": session.model,
        **_spend_summary(session),
    }


def _spend_summary(session: Session) -> dict[str, Any]:
    spend = session.spending.spend()
    total = spend.total
    return {
        "usage": {"prompt_tokens": total.prompt_tokens,
                  "completion_tokens": total.completion_tokens, "cost_usd": total.cost_usd},
        "reviewers": {label: {"calls": t.calls, "prompt_tokens": t.prompt_tokens,
                              "completion_tokens": t.completion_tokens, "cost_usd": t.cost_usd}
                      for label, t in spend.by["reviewer"].items()},
        "ledger": spend.to_dict(),
        "budget": [{"scope": g.scope, "measure": g.measure, "spent": g.spent, "limit": g.limit}
                   for g in session.spending.gauges()],
    }


def run_agent(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """Seed 000's runner: a profile, a system prompt file, paths; the answer into a file."""
    from valarmind_tui.agents.profiles import resolve_profile

    if not args.prompt.is_file():
        raise UsageError(f"prompt file not found: {args.prompt}")
    profile = resolve_profile(settings, root, args.agent)
    overrides = {
        "model": args.model or profile.model,
        "api_base": args.api_base or profile.api_base,
        "api_key_env": profile.api_key_env or settings.api_key_env,
    }
    run_settings = settings.model_copy(update={k: v for k, v in overrides.items() if v})
    system_prompt = args.prompt.read_text(encoding="utf-8")
    paths = "\n".join(f"- {p}" for p in args.paths) or "- (none given: the whole project)"
    task = f"Do what the system prompt asks for these paths:\n{paths}"
    return asyncio.run(
        _run_profile(run_settings, root, profile, system_prompt, task, args.output)
    )


async def _run_profile(
    settings: Settings, root: Path, profile: Any, system_prompt: str, task: str, output: Path
) -> int:
    from valarmind_tui.agents.loop import AgentLoop, LoopDeps
    from valarmind_tui.agents.spec import AgentSpec
    from valarmind_tui.tools.base import ToolContext

    session = build_session(settings, root, approver=headless_approver(settings, root))
    startup_gc.resume()
    provider = _require_model(session)
    tools = session.tools.subset(profile.tools or READ_ONLY_TOOLS)
    spec = AgentSpec(name=profile.name, description="runner profile", system_prompt=system_prompt,
                     max_turns=profile.max_turns, source="profile")
    deps = LoopDeps(provider=provider, tools=tools, gate=session.gate, bus=session.bus,
                    ctx=ToolContext(project_root=session.project_root, sandbox=session.sandbox),
                    totals=session.totals)
    manager = _profile_servers(settings, root, profile, session)
    try:
        await manager.start(profile.mcp_servers)
        manager.register_into(tools, allow_overrides=profile.tool_overrides or None)
        session.spending.begin_prompt()  # the run is one prompt for the --max-* flags
        outcome = await AgentLoop(spec, deps, model=session.model).run(task)
    finally:
        await manager.close()
        await session.close()
    if outcome.status == RunStatus.FAILED:
        print(visible(f"valarmind run: {outcome.error}"), file=sys.stderr)
        return 1
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(outcome.text.rstrip() + "\n", encoding="utf-8")
    return EXIT_CODES.get(outcome.status, 1)


def _profile_servers(settings: Settings, root: Path, profile: Any, session: Session) -> McpManager:
    """Exactly the MCP servers the profile names (seed 000), from config or external-agents.json."""
    from valarmind_tui.agents.profiles import EXTERNAL_AGENTS_FILE
    from valarmind_tui.mcp_client.config_files import read_mcp_json, server_configs

    trusted = settings.project_trusted
    known = server_configs(settings.mcp, root, trusted=trusted)
    if trusted:
        known.update(read_mcp_json(root / EXTERNAL_AGENTS_FILE, set(settings.mcp.project_env)))
    wanted = {name: known[name] for name in profile.mcp_servers if name in known}
    # naming a profile's servers on the command line vouches for them, as config would
    return McpManager(settings.mcp, root, session.bus, servers=wanted, user_servers=set(wanted))


READ_ONLY_TOOLS = ("read_file", "read_many_files", "glob", "grep", "tree_view", "git_status",
                   "git_diff", "repo_map")


def run_subcommand(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """`valarmind init`: the slash command run headless. In a terminal it asks before writing
    (a summary, the diff on request); without one it writes only with --yes. The outcome is
    the last line."""
    line = "/init --yes" if args.yes else "/init"
    asking = not args.yes and sys.stdin.isatty() and sys.stdout.isatty()
    approver = TerminalApprover() if asking else PolicyApprover()
    result = asyncio.run(_run_line(settings, root, line, approver))
    sys.stdout.write(visible(result.text.rstrip()) + "\n")
    if not result.ok:
        return 1
    unwritten = "not written" in result.text.rsplit("\n", 1)[-1]
    return EXIT_USAGE if unwritten and not asking else 0


EXIT_USAGE = 2


class TerminalApprover:
    """Asks on the terminal: the summary and the diff's size, the diff itself on `d`."""

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        diff = request.diff or ""
        print(visible(request.reason.split("\n", 1)[0]))
        print(f"{visible(request.summary)}: {diff_stats(diff)} lines")
        while True:
            answer = (await asyncio.to_thread(_ask, "Write it? [y/N, d: show the diff] "))
            if answer == "d":
                print(visible(diff))
                continue
            return ApprovalAnswer("allow_once" if answer in ("y", "yes") else "deny")


def _ask(question: str) -> str:
    try:
        return input(question).strip().lower()
    except EOFError:
        return ""


def run_review_command(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """`valarmind review`: /review headless; `--sarif FILE` also writes SARIF 2.1.0, and
    `--fail-on SEVERITY` exits 1 when a finding is that severe or worse (for CI and
    pre-commit)."""
    import shlex

    from valarmind_tui.agents.review.report import fails, sarif

    words = [*args.target, *(["--json"] if args.json else [])]
    result = asyncio.run(_run_line(settings, root, "/review " + shlex.join(words)))
    report = result.data
    if report is None and not result.ok:  # it never ran: no repository, a bad range
        print(f"valarmind: {visible(result.text.strip())}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(visible(result.text.rstrip()) + "\n")  # file names and findings too
    if report is None or not result.ok:
        return 1
    if args.sarif is not None:
        args.sarif.parent.mkdir(parents=True, exist_ok=True)
        args.sarif.write_text(json.dumps(sarif(report), indent=2) + "\n", encoding="utf-8")
    if args.fail_on and fails(report.findings, args.fail_on):
        return 1
    return 0


async def _run_line(settings: Settings, root: Path, line: str,
                    approver: Approver | None = None) -> Any:
    session = build_session(settings, root, approver=approver or PolicyApprover())
    for notice in session.startup_notices:
        print(visible(f"valarmind: {notice}"), file=sys.stderr)
    try:
        return await session.run_command(line)
    finally:
        await session.close()



def run_commit_command(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """`valarmind commit`: /commit headless. The project's detected commands pass the policy
    (running them is what the command is for; still in the sandbox, deny rules still apply);
    the message is not edited. A JSON summary on stdout, the chain's status as exit code
    (EXIT_CODES), 2 when nothing is staged."""
    import shlex

    from valarmind_tui.agents.commit.chain import CommitOutcome
    from valarmind_tui.context.project_commands import commands_of, detect_commands

    words = ["--push"] * args.push + ["--no-review"] * args.no_review + ["--all"] * args.all
    words += ["-m", args.message] if args.message is not None else []
    approver = PolicyApprover(project_commands=commands_of(detect_commands(root)))

    async def run() -> Any:
        session = build_session(settings, root, approver=approver)
        for notice in session.startup_notices:
            print(visible(f"valarmind: {notice}"), file=sys.stderr)
        try:
            return await session.run_command("/commit " + shlex.join(words))
        finally:
            await session.close()

    result = asyncio.run(run())
    outcome = result.data
    if not isinstance(outcome, CommitOutcome):
        raise UsageError(result.text)
    summary = outcome.to_dict()
    summary["exit_code"] = EXIT_CODES.get(outcome.status, 1)
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return summary["exit_code"]


def run_session_command(settings: Settings, root: Path, args: argparse.Namespace) -> int:
    """`valarmind undo|redo|rewind|sessions`: the stored session's checkpoints, headless."""
    if args.command == "sessions":
        return _list_sessions(root, args)
    line = {"undo": "/undo", "redo": "/redo"}.get(args.command, "/rewind")
    if args.command == "rewind" and args.to is not None:
        line += f" {args.to}"
    if args.command == "rewind" and args.prompt is not None:
        line += f" --prompt {args.prompt or ''} {args.scope}" + " --keep" * args.keep
    line += " --force" * args.force + " --preview" * args.preview
    listing = args.command == "rewind" and args.list
    return asyncio.run(_run_stored_line(settings, root, args.session, line,
                                        footer=CLI_REWIND if listing else ""))


CLI_REWIND = ("From the shell: `valarmind rewind --to N` (files, by turn) or `valarmind rewind "
              "--prompt N [--scope files|conversation|both]` (by message), `--preview` first.")


async def _run_stored_line(settings: Settings, root: Path, session_id: str, line: str, *,
                           footer: str = "") -> int:
    session = open_session(settings, root, approver=PolicyApprover(), resume=session_id)
    try:
        result = await session.run_command(line)
    finally:
        await session.close()
    text = result.text.rstrip() + (f"\n{footer}" if footer else "")
    (sys.stdout if result.ok else sys.stderr).write(visible(text) + "\n")
    return 0 if result.ok else 1


def _list_sessions(root: Path, args: argparse.Namespace) -> int:
    from valarmind_tui.commands.rewind import describe_summary
    from valarmind_tui.core.user_dirs import user_data_dir
    from valarmind_tui.store.sessions import SessionStore

    store = SessionStore(user_data_dir() / "sessions.db")
    try:
        found = store.summaries(root, limit=args.limit)
    finally:
        store.close()
    if args.json:
        json.dump([{**s.info.__dict__, "cost_usd": s.cost_usd,
                    "files_changed": s.files_changed} for s in found], sys.stdout)
        sys.stdout.write("\n")
        return 0
    if not found:
        print(visible(f"No stored sessions for {root}."))
    for summary in found:
        print(visible(describe_summary(summary)))
    return 0
