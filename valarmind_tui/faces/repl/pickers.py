"""What the plain REPL does after a slash command (its ACTIONS table): the /rewind and /resume
pickers (numbered lists and a question, then the same session-layer calls the TUI makes,
commands/rewind.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from valarmind_tui.checkpoints.rewind import OnConflict, Scope
from valarmind_tui.commands.rewind import (
    REWOUND,
    describe_point,
    describe_summary,
    rewind_points,
    rewind_session,
    session_choices,
)
from valarmind_tui.core.errors import UsageError, ValarMindError
from valarmind_tui.session.switch import switch_session

if TYPE_CHECKING:
    from valarmind_tui.commands.registry import CommandResult
    from valarmind_tui.faces.repl.plain import Repl

_SCOPES: dict[str, Scope] = {"f": "files", "c": "conversation", "b": "both"}


async def after_command(repl: Repl, result: CommandResult) -> bool:
    """Show what a command said and perform its action (ACTIONS); False means quit."""
    kind, _, argument = (result.action or "").partition(":")
    if kind not in LISTS_ITSELF:
        repl.line(result.text)
    perform = ACTIONS.get(kind)
    if perform is not None:
        await perform(repl, argument)
    return kind != "quit"


async def rewound(repl: Repl, _argument: str) -> None:
    repl.line(f"Conversation rewound: {len(repl.session.history)} messages kept.")


async def _number(repl: Repl, question: str, count: int) -> int | None:
    answer = ((await repl.reader.read(question)) or "").strip()
    if answer.isdigit() and 1 <= int(answer) <= count:
        return int(answer)
    repl.line("Cancelled: nothing changed." if not answer else f"No choice {answer!r}: "
              "nothing changed.")
    return None


async def pick_rewind(repl: Repl, _argument: str = "") -> None:
    try:
        await _pick_rewind(repl)
    except ValarMindError as exc:  # the checkpoints could not be read or restored
        repl.line(str(exc))


async def _pick_rewind(repl: Repl) -> None:
    try:
        points = await rewind_points(repl.session)
    except UsageError as exc:
        repl.line(str(exc))
        return
    if not points:
        repl.line("No messages to rewind to yet.")
        return
    repl.line("Your messages:\n" + "\n".join(describe_point(p) for p in points))
    number = await _number(repl, "Rewind to before which message? (number, empty cancels) ",
                           len(points))
    if number is None:
        return
    key = ((await repl.reader.read("Restore [f]iles, [c]onversation or [b]oth? ")) or "")
    scope = _SCOPES.get(key.strip().lower()[:1])
    if scope is None:
        repl.line("Cancelled: nothing changed.")
        return
    point = points[number - 1]
    plan = await rewind_session(repl.session, point, scope, preview=True)
    repl.line(plan.describe())
    if plan.conflicts:
        question = "[o]verwrite the files changed by hand, [k]eep them, [n] cancel? "
        answers: dict[str, OnConflict] = {"o": "overwrite", "k": "keep"}
    else:
        question = "Rewind? [y/N] "
        answers = {"y": "ask"}
    key = ((await repl.reader.read(question)) or "").strip().lower()[:1]
    if key not in answers:
        repl.line("Cancelled: nothing written.")
        return
    outcome = await rewind_session(repl.session, point, scope, on_conflict=answers[key])
    repl.line(outcome.describe())


async def pick_resume(repl: Repl, _argument: str = "") -> None:
    summaries = await session_choices(repl.session)
    if not summaries:
        repl.line("No stored sessions for this project.")
        return
    rows = [f"{n:>3}  {describe_summary(s)}"
            + ("  (this one)" if s.info.id == repl.session.session_id else "")
            for n, s in enumerate(summaries, 1)]
    repl.line("Stored sessions:\n" + "\n".join(rows))
    number = await _number(repl, "Resume which? (number, empty cancels) ", len(summaries))
    if number is not None and summaries[number - 1].info.id != repl.session.session_id:
        await switch(repl, summaries[number - 1].info.id)


async def switch(repl: Repl, session_id: str) -> None:
    repl.use(await switch_session(repl.session, session_id))
    await repl.session.start()
    repl.show_resumed()


ACTIONS: dict[str, Callable[[Repl, str], Awaitable[None]]] = {
    "pick-rewind": pick_rewind, "pick-resume": pick_resume, "resume": switch, REWOUND: rewound,
}
"""What the REPL does after a command, by its action (`kind:argument`). `quit` ends the loop;
`clear` and `theme:` need nothing from a line-mode face."""
LISTS_ITSELF = ("pick-rewind", "pick-resume")
"""Actions whose picker lists the choices instead of the command's text."""
