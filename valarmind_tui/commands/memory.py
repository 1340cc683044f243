"""The person's notes (issue #35): `# note` saves one where they choose, `/memory` opens the
files in $EDITOR. The faces ask where; `remember` is what they call once the person chose."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult, EditFiles
from valarmind_tui.context.memory import (
    HEADING,
    PLACE_HELP,
    PLACES,
    MemoryPlace,
    NoteNotSaved,
    memory_file,
    save_note,
)

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


def remember(ctx: CommandContext, place: MemoryPlace, note: str,
             home: Path | None = None) -> CommandResult:
    """Save `note` in `place`'s file; the agents read it from the next prompt on."""
    try:
        saved = save_note(place, note, ctx.project_root, home or Path.home())
    except NoteNotSaved as exc:
        return CommandResult(f"Not saved: {exc}.", ok=False)
    ctx.invalidate_context()
    return CommandResult(f"Saved to `{saved.shown}` under {HEADING}: {saved.note}")


async def memory(ctx: CommandContext, args: str) -> CommandResult:
    home = Path.home()
    place = args.strip()
    if place:
        if place not in PLACES:
            return CommandResult(f"Unknown place {place!r}; one of: {', '.join(PLACES)}.",
                                 ok=False)
        chosen: MemoryPlace = place
        path, shown = memory_file(chosen, ctx.project_root, home)
        return CommandResult(f"Opening `{shown}`.", action=EditFiles((path,)))
    rows, existing = [], []
    for name in PLACES:
        path, shown = memory_file(name, ctx.project_root, home)
        there = path.is_file()
        existing += [path] if there else []
        rows.append(f"- `{name}`: `{shown}`{'' if there else ' (not made yet)'}, "
                    f"{PLACE_HELP[name]}")
    text = ("Memory files (a prompt line starting with `#` saves a note in one of them; "
            "`/memory PLACE` opens one):\n" + "\n".join(rows))
    return CommandResult(text, action=EditFiles(tuple(existing)) if existing else None)


COMMANDS = [
    Command("memory", "open the memory files in $EDITOR (`# note` saves a note)", memory,
            usage="[project|local|user]", choices=lambda ctx: list(PLACES)),
]
