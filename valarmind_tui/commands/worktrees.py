"""/worktree and /fork for every face: worktrees made, listed, previewed, merged and removed from
a session, and best-of-N attempts compared for the person to pick (docs/worktrees.md)."""

from __future__ import annotations

import asyncio
import io
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.core.events import AgentFinished, AgentSpawned, RunStatus

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext
    from valarmind_tui.core.bus import EventBus
    from valarmind_tui.worktrees.attempts import Attempt, AttemptWatcher

# worktrees/ is imported when one of these commands runs: every session registers them.

WORKTREE_USAGE = "[NAME | list | preview NAME | merge NAME [--check CMD] | remove NAME [--force]]"
FORK_USAGE = "N [--models A,B,C] [--check CMD] TASK"
MAX_ATTEMPTS = 8


async def worktree(ctx: CommandContext, args: str) -> CommandResult:
    from valarmind_tui.worktrees import merge as merging
    from valarmind_tui.worktrees import worktree as worktrees

    try:
        words = shlex.split(args)
        origin = await asyncio.to_thread(worktrees.main_root, ctx.project_root)
        if not words or words == ["list"]:
            return CommandResult(await asyncio.to_thread(_listing, origin))
        action, name = words[0], words[1] if len(words) > 1 else ""
        if action in ("preview", "merge", "remove") and not name:
            return CommandResult(f"usage: /worktree {WORKTREE_USAGE}", ok=False)
        if action == "preview":
            found = await asyncio.to_thread(merging.preview, origin, name)
            return CommandResult("\n".join(found.lines()))
        if action == "merge":
            checks = tuple(_option_values(words[2:], "--check")) or _detected(ctx, origin)
            report = await asyncio.to_thread(merging.merge, origin, name, checks, ctx.sandbox)
            return CommandResult("\n".join(report.lines()), ok=report.merged, data=report)
        if action == "remove":
            gone = await asyncio.to_thread(worktrees.remove, origin, name,
                                           force="--force" in words)
            return CommandResult(f"removed worktree {gone.name} and its branch {gone.branch}")
        made = await asyncio.to_thread(worktrees.open_or_create, origin, action)
    except (ValarMindError, ValueError) as exc:
        return CommandResult(str(exc), ok=False)
    return CommandResult(
        f"worktree {made.name} (branch {made.branch}) at {made.path}, from your HEAD and your "
        f"uncommitted changes. This session stays in {ctx.project_root}; open one there with "
        f"`valarmind --worktree {made.name}`, and bring it back with "
        f"`/worktree merge {made.name}`.")


def _detected(ctx: CommandContext, origin: Path) -> tuple[str, ...]:
    from valarmind_tui.worktrees.checks import default_checks

    allowed = ctx.settings.project_trusted or ctx.settings.allow_project_commands
    return default_checks(origin, allowed=allowed)


def _listing(root: Path) -> str:
    from valarmind_tui.worktrees import worktree as worktrees

    found = worktrees.list_all(root)
    if not found:
        return "No worktrees. /worktree NAME makes one from your tree."
    rows = []
    for w in found:
        left = worktrees.unmerged(root, w)
        rows.append(f"{w.name}  {w.branch}  "
                    f"{f'{len(left)} file(s) not merged' if left else 'nothing unmerged'}  "
                    f"{w.path}")
    return "\n".join(rows)


def _option_values(words: list[str], option: str) -> list[str]:
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == option]


def _fork_options(text: str) -> tuple[tuple[str, ...], list[str], str]:
    """(models, checks, task): `--models A,B` and `--check CMD` (shell-quoted) before the task,
    which is the rest of the line as typed."""
    stream = io.StringIO(text)
    lexer = shlex.shlex(stream, posix=True)
    lexer.whitespace_split = True
    models: tuple[str, ...] = ()
    checks: list[str] = []
    while True:
        at = stream.tell()
        option = lexer.get_token()
        if option not in ("--models", "--check"):
            return models, checks, text[at:].strip()
        value = lexer.get_token() or ""
        if option == "--models":
            models = tuple(m for m in value.split(",") if m)
        else:
            checks.append(value)


async def fork(ctx: CommandContext, args: str) -> CommandResult:
    """N attempts at TASK in N worktrees at once, compared; the person picks with
    `/worktree merge NAME`."""
    from valarmind_tui.worktrees import worktree as worktrees
    from valarmind_tui.worktrees.attempts import AttemptPlan, child_flags
    from valarmind_tui.worktrees.best_of import attempt_prefix, compare_attempts

    count_text, _, rest = args.strip().partition(" ")
    if not count_text.isdigit() or not 1 <= int(count_text) <= MAX_ATTEMPTS:
        return CommandResult(f"usage: /fork {FORK_USAGE} (N from 1 to {MAX_ATTEMPTS})",
                             ok=False)
    try:
        models, checks, task = _fork_options(rest)
    except ValueError as exc:  # an unclosed quote
        return CommandResult(f"/fork: {exc}", ok=False)
    if not task:
        return CommandResult(f"usage: /fork {FORK_USAGE}", ok=False)
    try:
        origin = await asyncio.to_thread(worktrees.main_root, ctx.project_root)
        flags = child_flags(mode=None, api_base=ctx.settings.api_base,
                            trusted=ctx.settings.project_trusted)
        plan = AttemptPlan(task, int(count_text), models or ((ctx.model,) if ctx.model else ()),
                           tuple(checks) or _detected(ctx, origin), flags, attempt_prefix())
        result = await compare_attempts(origin, plan, ctx.sandbox, watch=_monitor(ctx.bus))
    except ValarMindError as exc:
        return CommandResult(str(exc), ok=False)
    passing = [a.name for a in result.attempts if a.passed]
    advice = (f"Pick one: /worktree merge NAME (passing: {', '.join(passing)})" if passing
              else "No attempt passed its checks; /worktree preview NAME shows one")
    return CommandResult("\n".join([*result.lines, advice]), data=result)


def _monitor(bus: EventBus) -> AttemptWatcher:
    """Each attempt in the agent monitor: started, then passed (done) or not (failed)."""
    def watch(attempt: Attempt, ended: bool) -> None:
        agent_id = f"fork:{attempt.name}"
        if not ended:
            bus.publish(AgentSpawned(agent_id=agent_id, parent_id=None, name=attempt.name,
                                     task=attempt.model or "the session's model"))
            return
        summary = ", ".join(attempt.changed[:3]) or "changed nothing"
        bus.publish(AgentFinished(
            agent_id=agent_id, name=attempt.name,
            status=RunStatus.DONE if attempt.passed else RunStatus.FAILED, summary=summary))

    return watch


COMMANDS = (
    Command("worktree", "make a worktree from your tree, or list, preview, merge, remove them",
            usage=WORKTREE_USAGE, handler=worktree),
    Command("fork", "N attempts at a task in N worktrees at once, compared for you to pick",
            usage=FORK_USAGE, idle_only=True, handler=fork),
)
