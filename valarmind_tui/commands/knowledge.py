"""Slash commands about what the agents know: /init, /map, /compact, /context."""

from __future__ import annotations

import asyncio
import shlex
import uuid
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.repomap.show import format_map
from valarmind_tui.safety.gate.approval import ApprovalRequest

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


INIT_USAGE = "[--yes]"


def init_flags(args: str) -> bool | str:
    """/init's flags: True when `--yes` (write without asking), False for none; a usage error
    (str) for anything else."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        return f"/init: {exc}. Usage: /init {INIT_USAGE}"
    unknown = [w for w in words if w not in ("--yes", "-y")]
    if unknown:
        return (f"/init: unknown argument {unknown[0]!r}. Usage: /init {INIT_USAGE} "
                "(--yes writes VALARMIND.md without asking).")
    return bool(words)


async def init(ctx: CommandContext, args: str) -> CommandResult:
    yes = init_flags(args)
    if isinstance(yes, str):
        return CommandResult(yes, ok=False)
    from valarmind_tui.agents.init_run import init_valarmind_md
    from valarmind_tui.agents.read_only import read_only_delegator
    from valarmind_tui.context.init.write import write_valarmind_md
    from valarmind_tui.core.events import Notice

    await ctx.hooks.setup("init")
    delegator = None if ctx.offline else read_only_delegator(
        ctx.project_root, ctx.provider(), ctx.settings, ctx.bus, ctx.sandbox)
    result = await init_valarmind_md(ctx.project_root, delegator)
    for warning in result.warnings:
        ctx.bus.publish(Notice(level="warning", message=f"/init: {warning}"))
    how = "a deterministic draft from the project's signals" \
        if result.drafted_without_model else f"written by the init agent ({ctx.model})"
    head = f"VALARMIND.md ({result.mode}, {result.tokens:,} tokens, {how})"
    report = f"\n\n{result.report()}" if result.report() else ""
    if not result.diff_vs_existing:
        return CommandResult(f"{head}: already up to date, nothing to write.{report}")
    if not yes and not (await ctx.approver.request(ApprovalRequest(
        request_id=uuid.uuid4().hex[:12], agent_id="init", tool="write_file",
        summary=f"write {result.path}", reason=head + report, diff=result.diff_vs_existing,
        path=result.path,
    ))).allowed:
        return CommandResult(  # the outcome last, where it cannot scroll away
            f"```diff\n{result.diff_vs_existing}```{report}"
            f"\n\n{head}: not written (approve it, or pass --yes).", data=result,
        )
    write_valarmind_md(ctx.project_root, result.text)
    ctx.invalidate_context()
    return CommandResult(f"{head}: written.{report}", data=result)


async def map_(ctx: CommandContext, args: str) -> CommandResult:
    words = args.split()
    tokens = 1024
    if "--tokens" in words:
        try:
            tokens = int(words[words.index("--tokens") + 1])
        except (IndexError, ValueError):
            return CommandResult("Usage: /map [--tokens N] [--json]", ok=False)
    result = await asyncio.to_thread(ctx.repo_map, tokens)
    return CommandResult(format_map(result, "--json" in words), data=result)


async def compact(ctx: CommandContext, args: str) -> CommandResult:
    notice = await ctx.compact()
    return CommandResult(notice)


async def context(ctx: CommandContext, args: str) -> CommandResult:
    breakdown = await asyncio.to_thread(ctx.context_breakdown)
    return CommandResult("```\n" + breakdown.render() + "\n```", data=breakdown)


COMMANDS = (
    Command("init", "write VALARMIND.md, the project's context file (after approval)",
            usage=INIT_USAGE, handler=init),
    Command("map", "show the repository map", usage="[--tokens N] [--json]", handler=map_),
    Command("compact", "summarize older turns to free the context window", idle_only=True,
            handler=compact),
    Command("context", "what fills the context window", handler=context),
)