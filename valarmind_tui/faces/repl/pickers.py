"""The plain REPL's /rewind and /resume pickers: numbered lists and a question, then the same
session-layer calls the TUI makes (commands/rewind.py). They are given what they use, the
session, where lines come from and where they go, not the REPL: it performs the command's
action (`Repl.after_command`) and switches sessions itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from valarmind_tui.checkpoints.rewind import OnConflict, Scope
from valarmind_tui.commands.rewind import (
    describe_point,
    describe_summary,
    rewind_points,
    rewind_session,
    session_choices,
)
from valarmind_tui.core.errors import UsageError, ValarMindError

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext
    from valarmind_tui.faces.repl.readers import LineReader

Say = Callable[[str], None]
"""Print a line of the REPL's output."""

_SCOPES: dict[str, Scope] = {"f": "files", "c": "conversation", "b": "both"}


async def _number(reader: LineReader, say: Say, question: str, count: int) -> int | None:
    answer = ((await reader.read(question)) or "").strip()
    if answer.isdigit() and 1 <= int(answer) <= count:
        return int(answer)
    say("Cancelled: nothing changed." if not answer else f"No choice {answer!r}: "
              "nothing changed.")
    return None


async def pick_rewind(session: CommandContext, reader: LineReader, say: Say) -> None:
    """Which message to go back to, what to restore, then a confirmation; rewinds."""
    try:
        await _pick_rewind(session, reader, say)
    except ValarMindError as exc:  # the checkpoints could not be read or restored
        say(str(exc))


async def _pick_rewind(session: CommandContext, reader: LineReader, say: Say) -> None:
    try:
        points = await rewind_points(session)
    except UsageError as exc:
        say(str(exc))
        return
    if not points:
        say("No messages to rewind to yet.")
        return
    say("Your messages:\n" + "\n".join(describe_point(p) for p in points))
    number = await _number(reader, say,
                           "Rewind to before which message? (number, empty cancels) ",
                           len(points))
    if number is None:
        return
    key = ((await reader.read("Restore [f]iles, [c]onversation or [b]oth? ")) or "")
    scope = _SCOPES.get(key.strip().lower()[:1])
    if scope is None:
        say("Cancelled: nothing changed.")
        return
    point = points[number - 1]
    plan = await rewind_session(session, point, scope, preview=True)
    say(plan.describe())
    if plan.conflicts:
        question = "[o]verwrite the files changed by hand, [k]eep them, [n] cancel? "
        answers: dict[str, OnConflict] = {"o": "overwrite", "k": "keep"}
    else:
        question = "Rewind? [y/N] "
        answers = {"y": "ask"}
    key = ((await reader.read(question)) or "").strip().lower()[:1]
    if key not in answers:
        say("Cancelled: nothing written.")
        return
    outcome = await rewind_session(session, point, scope, on_conflict=answers[key])
    say(outcome.describe())


async def pick_resume(session: CommandContext, reader: LineReader, say: Say) -> str | None:
    """The stored session the person picked, or None (cancelled, none stored, this one)."""
    summaries = await session_choices(session)
    if not summaries:
        say("No stored sessions for this project.")
        return None
    rows = [f"{n:>3}  {describe_summary(s)}"
            + ("  (this one)" if s.info.id == session.session_id else "")
            for n, s in enumerate(summaries, 1)]
    say("Stored sessions:\n" + "\n".join(rows))
    number = await _number(reader, say, "Resume which? (number, empty cancels) ",
                           len(summaries))
    if number is None or summaries[number - 1].info.id == session.session_id:
        return None
    return summaries[number - 1].info.id
