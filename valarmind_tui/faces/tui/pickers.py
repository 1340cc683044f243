"""The app's /rewind and /resume pickers: open the screens, then call the session layer
(commands/rewind.py) with the person's choices. Runs in the command worker (push_screen_wait).

They are given Textual's `App` (its screens, widgets and notifications) and the session, not
the ValarMind app, which performs a command's action (`_perform` in app.py) and switches
sessions itself (`pick_resume` returns the one chosen).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App

from valarmind_tui.commands.rewind import rewind_points, rewind_session, session_choices
from valarmind_tui.core.errors import UsageError, ValarMindError
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui.resumed import redraw
from valarmind_tui.faces.tui.screens.rewind import ResumePicker, RewindPicker, RewindPreview
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.chat import ChatView

if TYPE_CHECKING:
    from valarmind_tui.session.session import Session


async def show_rewound(app: App[Any], session: Session) -> None:
    """A typed /rewind --prompt N cut the conversation: show what is left, and what the
    command said stays in view."""
    chat = app.query_one(ChatView)
    said = list(chat.query(CommandOutput))[-1:]
    await redraw(chat, session)
    for output in said:
        await chat.add(CommandOutput(output.line, output.text))


async def pick_rewind(app: App[Any], session: Session) -> None:
    """Which message to go back to, what to restore, a preview; then rewinds and says so."""
    try:
        await _pick_rewind(app, session)
    except ValarMindError as exc:  # the checkpoints could not be read or restored
        app.notify(str(exc), severity="warning")


async def _pick_rewind(app: App[Any], session: Session) -> None:
    try:
        points = await rewind_points(session)
    except UsageError as exc:
        app.notify(visible(str(exc)), severity="warning", markup=False)
        return
    if not points:
        app.notify("No messages to rewind to yet.")
        return
    picked = await app.push_screen_wait(RewindPicker(points))
    if picked is None:
        return
    point, scope = picked
    plan = await rewind_session(session, point, scope, preview=True)
    answer = await app.push_screen_wait(RewindPreview(plan))
    if answer is None:
        app.notify("Rewind cancelled: nothing written.")
        return
    outcome = await rewind_session(session, point, scope, on_conflict=answer)
    chat = app.query_one(ChatView)
    if outcome.history is not None:
        await redraw(chat, session)
    await chat.add(CommandOutput("/rewind", outcome.describe(), not outcome.needs_answer))


async def pick_resume(app: App[Any], session: Session) -> str | None:
    """The stored session the person picked, or None (none stored, cancelled, this one)."""
    summaries = await session_choices(session)
    if not summaries:
        app.notify("No stored sessions for this project.")
        return None
    chosen = await app.push_screen_wait(ResumePicker(summaries, session.session_id))
    return chosen if chosen and chosen != session.session_id else None
