"""Slash commands about what the agents know: /init, /map, /compact, /context."""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from valarmind_tui.commands import CommandRegistry, CommandResult, command
from valarmind_tui.repomap.show import format_map
from valarmind_tui.safety.approval import ApprovalRequest

if TYPE_CHECKING:
    from valarmind_tui.session import Session


def register_context_commands(registry: CommandRegistry) -> None:
    @command(registry, "init", "write VALARMIND.md, the project's context file (after approval)",
             usage="[--yes]")
    async def init(session: Session, args: str) -> CommandResult:
        from valarmind_tui.context.init_agent import generate_valarmind_md, write_valarmind_md

        provider = None if session.offline else session.provider()
        result = await generate_valarmind_md(session.project_root, provider, session.model)
        how = "a deterministic draft from the project's signals (no model configured)" \
            if result.drafted_without_model else f"written by {session.model}"
        head = f"VALARMIND.md ({result.mode}, {result.tokens:,} tokens, {how})"
        if not result.diff_vs_existing:
            return CommandResult(f"{head}: already up to date, nothing to write.")
        answer = await session.approver.request(ApprovalRequest(
            request_id=uuid.uuid4().hex[:12], agent_id="init", tool="write_file",
            summary=f"write {result.path}", reason=head, diff=result.diff_vs_existing,
            path=result.path,
        ))
        if not answer.allowed:
            return CommandResult(
                f"{head}: not written (approve it, or pass --yes headless)."
                f"\n\n```diff\n{result.diff_vs_existing}```", data=result,
            )
        write_valarmind_md(session.project_root, result.text)
        session.invalidate_context()
        return CommandResult(f"{head}: written.", data=result)

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
