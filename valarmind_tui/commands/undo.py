"""Slash commands that take work back: /undo, /redo, /rewind (/resume and /rewind --prompt are
in rewind.py)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult, PickRewind
from valarmind_tui.commands.rewind import (
    PICK_A_PROMPT,
    REWIND_USAGE,
    rewind_help,
    rewind_to_prompt,
)
from valarmind_tui.core.errors import ValarMindError

if TYPE_CHECKING:
    from valarmind_tui.checkpoints import Restored
    from valarmind_tui.commands.api import CommandContext


async def undo(ctx: CommandContext, args: str) -> CommandResult:
    return await _restore(ctx.checkpoints.undo(**_flags(args)))


async def redo(ctx: CommandContext, args: str) -> CommandResult:
    return await _restore(ctx.checkpoints.redo(**_flags(args)))


async def rewind(ctx: CommandContext, args: str) -> CommandResult:
    words = args.split()
    if "--prompt" in words:
        return await rewind_to_prompt(ctx, words)
    numbers = [w for w in words if w.isdigit()]
    unknown = [w for w in words if not w.isdigit() and w not in ("--preview", "--force")]
    if unknown:
        return CommandResult(f"/rewind does not know {unknown[0]!r}. Usage: "
                             f"{REWIND_USAGE}\n{PICK_A_PROMPT}", ok=False)
    if not numbers:
        listed = await list_turns(ctx)
        return CommandResult(listed.text, data=listed.data, action=PickRewind())
    return await _restore(ctx.checkpoints.rewind(int(numbers[0]), **_flags(args)))


COMMANDS = (
    Command("undo", "take back the files the last turn changed (edits and commands)",
            usage="[--preview] [--force]", idle_only=True, handler=undo),
    Command("redo", "put back what /undo took back", usage="[--preview] [--force]",
            idle_only=True, handler=redo),
    Command("rewind", "pick a message to go back to (files, conversation or both), or restore "
            "the files to before turn N",
            usage=REWIND_USAGE.removeprefix("/rewind "), idle_only=True, handler=rewind),
)


def _flags(args: str) -> dict[str, bool]:
    words = args.split()
    return {"force": "--force" in words, "preview": "--preview" in words}


async def _restore(work: Any) -> CommandResult:
    try:
        restored: Restored = await work
    except ValarMindError as exc:  # nothing to undo, or the checkpoints could not be read
        return CommandResult(str(exc), ok=False)
    report = restored.report
    return CommandResult(restored.describe(), ok=not report.conflicts, data=restored)


async def list_turns(ctx: CommandContext) -> CommandResult:
    try:
        turns = await asyncio.to_thread(ctx.checkpoints.turns)
    except ValarMindError as exc:
        return CommandResult(str(exc), ok=False)
    if not turns:
        return CommandResult("No checkpoints yet: no turn of this session changed files.\n"
                             + rewind_help(ctx))
    rows = []
    for turn in turns:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(turn.at))
        state = f" ({turn.state})" if turn.state else ""
        prompt = turn.prompt.splitlines()[0][:70] if turn.prompt else ""
        rows.append(f"{turn.number:>3}  {when}  {prompt}{state}")
    return CommandResult("Turns that changed files (`/rewind N` restores the files to before "
                         "turn N):\n" + "\n".join(rows) + "\n" + rewind_help(ctx), data=turns)


