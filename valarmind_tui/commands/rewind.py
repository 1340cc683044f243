"""/rewind to before a message (files, conversation or both) and /resume, with the session-level
calls the faces' pickers use: they never reach the store or the shadow repository themselves."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from valarmind_tui.checkpoints.rewind import (
    SCOPES,
    OnConflict,
    Rewinder,
    RewindOutcome,
    RewindPoint,
    Scope,
)
from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import (
    CommandResult,
    ConversationRewound,
    PickResume,
    Resume,
)
from valarmind_tui.core.errors import UsageError, ValarMindError
from valarmind_tui.store.sessions import SessionSummary

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext

REWIND_USAGE = "/rewind [N | --prompt N [files|conversation|both] [--keep]] [--preview] [--force]"
PICK_A_PROMPT = ("To go back to before one of your messages (its files, the conversation or "
                 "both): `/rewind --prompt N [files|conversation|both]`; `/rewind --prompt` "
                 "lists your messages. Add `--preview` to see what would change first.")
OPEN_ONE_FIRST = ("To rewind an earlier session, open it first: `/resume` (headless: "
                  "`valarmind --continue -p \"/rewind\"`, `valarmind --resume ID -p "
                  "\"/rewind\"`, or `valarmind rewind --list`).")


def rewind_help(ctx: CommandContext) -> str:
    """How to pick a point, after a list (or instead of an empty one)."""
    return PICK_A_PROMPT if ctx.history else (
        "This session has no messages yet. " + OPEN_ONE_FIRST)


def _rewinder(ctx: CommandContext) -> Rewinder:
    return Rewinder(ctx.checkpoints, ctx.store, ctx.session_id)


async def rewind_points(ctx: CommandContext) -> list[RewindPoint]:
    """The person's messages in this session, oldest first, for a picker."""
    return await asyncio.to_thread(_rewinder(ctx).points)


async def rewind_session(ctx: CommandContext, point: RewindPoint, scope: Scope, *,
                         preview: bool = False, on_conflict: OnConflict = "ask",
                         ) -> RewindOutcome:
    """Rewind to before `point` (see checkpoints/rewind.py); a cut conversation becomes the
    session's history."""
    if ctx.busy:
        raise UsageError("/rewind cannot run while the agent is working.")
    outcome = await _rewinder(ctx).rewind(point, scope, preview=preview,
                                              on_conflict=on_conflict)
    if outcome.history is not None:
        ctx.history = outcome.history
    return outcome


async def rewind_to_prompt(ctx: CommandContext, words: list[str]) -> CommandResult:
    """`/rewind --prompt N [files|conversation|both] [--preview] [--force|--keep]`."""
    numbers = [w for w in words if w.isdigit()]
    scopes = [w for w in words if w in SCOPES]
    if not numbers:
        return await list_prompts(ctx)
    try:
        point = (await asyncio.to_thread(_rewinder(ctx).point, int(numbers[0])))
        on_conflict: OnConflict = ("overwrite" if "--force" in words else
                                   "keep" if "--keep" in words else "ask")
        outcome = await rewind_session(ctx, point, scopes[0] if scopes else "files",
                                       preview="--preview" in words, on_conflict=on_conflict)
    except ValarMindError as exc:  # no such message, or the checkpoints could not be read
        return CommandResult(str(exc), ok=False)
    action = ConversationRewound() if outcome.history is not None else None
    return CommandResult(outcome.describe(), ok=not outcome.needs_answer, data=outcome,
                         action=action)


async def list_prompts(ctx: CommandContext) -> CommandResult:
    try:
        points = await rewind_points(ctx)
    except ValarMindError as exc:
        return CommandResult(str(exc), ok=False)
    if not points:
        return CommandResult("No messages yet. " + OPEN_ONE_FIRST)
    rows = [describe_point(p) for p in points]
    return CommandResult("Your messages (`/rewind --prompt N [files|conversation|both]` goes "
                         "back to before message N):\n" + "\n".join(rows), data=points)


def describe_point(point: RewindPoint) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(point.at)) if point.at else "?"
    text = point.text.strip().splitlines()[0][:70] if point.text.strip() else ""
    files = "" if point.turn is None else "  [files changed since]"
    return f"{point.number:>3}  {when}  {text}{files}"


# -- /resume ---------------------------------------------------------------------------------
async def resume(ctx: CommandContext, args: str) -> CommandResult:
    summaries = await session_choices(ctx)
    if args:
        if not any(s.info.id == args for s in summaries):
            return CommandResult(f"No stored session {args!r} for {ctx.project_root}.",
                                 ok=False)
        return CommandResult(f"Switching to session {args}.", action=Resume(args))
    if not summaries:
        return CommandResult("No stored sessions for this project.")
    rows = [f"{n:>3}  {describe_summary(s)}" for n, s in enumerate(summaries, 1)]
    return CommandResult("Stored sessions (`/resume ID` switches):\n" + "\n".join(rows),
                         data=summaries, action=PickResume())


COMMANDS = (
    Command("resume", "pick a stored session of this project and switch to it",
            usage="[SESSION]", idle_only=True, handler=resume),
)


async def session_choices(ctx: CommandContext, limit: int = 30) -> list[SessionSummary]:
    """This project's stored sessions, newest first (the open one included)."""
    if ctx.store is None:
        return []
    return await asyncio.to_thread(ctx.store.summaries, ctx.project_root, limit)


def describe_summary(summary: SessionSummary) -> str:
    """One line: time, first prompt, model, cost, files changed, id."""
    info = summary.info
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated))
    title = info.title.splitlines()[0][:50] if info.title else "(no prompt)"
    cost = f"${summary.cost_usd:.4f}" if summary.cost_usd is not None else "$-"
    return (f"{when}  {title}  · {info.model or 'no model'} · {cost} · "
            f"{summary.files_changed} files · {info.id}")
