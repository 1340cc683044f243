"""Slash commands about what the agents know: /init, /map, /compact, /context."""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from valarmind_tui.commands.registry import CommandRegistry, CommandResult, command
from valarmind_tui.repomap.show import format_map
from valarmind_tui.safety.approval import ApprovalRequest

if TYPE_CHECKING:
    from valarmind_tui.session import Session


def register_context_commands(registry: CommandRegistry) -> None:
    @command(registry, "init", "write VALARMIND.md, the project's context file (after approval)",
             usage="[--yes]")
    async def init(session: Session, args: str) -> CommandResult:
        from valarmind_tui.agents.init_run import init_valarmind_md
        from valarmind_tui.agents.read_only import read_only_delegator
        from valarmind_tui.context.init_agent import write_valarmind_md
        from valarmind_tui.events import Notice

        delegator = None if session.offline else read_only_delegator(
            session.project_root, session.provider(), session.settings, session.bus,
            session.sandbox)
        result = await init_valarmind_md(session.project_root, delegator)
        for warning in result.warnings:
            session.bus.publish(Notice(level="warning", message=f"/init: {warning}"))
        how = "a deterministic draft from the project's signals" \
            if result.drafted_without_model else f"written by the init agent ({session.model})"
        head = f"VALARMIND.md ({result.mode}, {result.tokens:,} tokens, {how})"
        report = f"\n\n{result.report()}" if result.report() else ""
        if not result.diff_vs_existing:
            return CommandResult(f"{head}: already up to date, nothing to write.{report}")
        answer = await session.approver.request(ApprovalRequest(
            request_id=uuid.uuid4().hex[:12], agent_id="init", tool="write_file",
            summary=f"write {result.path}", reason=head + report, diff=result.diff_vs_existing,
            path=result.path,
        ))
        if not answer.allowed:
            return CommandResult(
                f"{head}: not written (approve it, or pass --yes headless).{report}"
                f"\n\n```diff\n{result.diff_vs_existing}```", data=result,
            )
        write_valarmind_md(session.project_root, result.text)
        session.invalidate_context()
        return CommandResult(f"{head}: written.{report}", data=result)

    @command(registry, "map", "show the repository map", usage="[--tokens N] [--json]")
    async def map_(session: Session, args: str) -> CommandResult:
        words = args.split()
        tokens = 1024
        if "--tokens" in words:
            try:
                tokens = int(words[words.index("--tokens") + 1])
            except (IndexError, ValueError):
                return CommandResult("Usage: /map [--tokens N] [--json]", ok=False)
        result = await asyncio.to_thread(session.repo_map, tokens)
        return CommandResult(format_map(result, "--json" in words), data=result)

    @command(registry, "compact", "summarize older turns to free the context window",
             idle_only=True)
    async def compact(session: Session, args: str) -> CommandResult:
        notice = await session.compact()
        return CommandResult(notice)

    @command(registry, "context", "what fills the context window")
    async def context(session: Session, args: str) -> CommandResult:
        breakdown = await asyncio.to_thread(session.context_breakdown)
        return CommandResult("```\n" + breakdown.render() + "\n```", data=breakdown)
