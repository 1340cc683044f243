"""The app's side of /rewind and /resume: open the pickers, then call the session layer
(commands/rewind.py) with the person's choices. Runs in the command worker (push_screen_wait)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from valarmind_tui.commands.rewind import (
    REWOUND,
    rewind_points,
    rewind_session,
    session_choices,
)
from valarmind_tui.core.errors import UsageError, ValarMindError
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui import garbage
from valarmind_tui.faces.tui.screens.rewind import ResumePicker, RewindPicker, RewindPreview
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.sidebar import Sidebar
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.session.switch import switch_session

if TYPE_CHECKING:
    from valarmind_tui.faces.tui.app import ValarMindApp

async def quit_app(app: ValarMindApp, _argument: str) -> None:
    app.exit(0)


async def clear(app: ValarMindApp, _argument: str) -> None:
    await app.query_one(ChatView).clear()
    garbage.settle_idle(force=True)  # the removed conversation was frozen


async def theme(app: ValarMindApp, name: str) -> None:
    """/theme NAME switches and says so; /theme lists the themes; an unknown name is an error
    that lists them (only the app knows which themes loaded, so it answers, not the command)."""
    name = name.strip()
    listed = ", ".join(app.theming.names())
    if not name:
        text, ok = f"Current theme: {app.theme}. Themes: {listed}. Switch with /theme NAME.", True
    elif app.theming.switch(name):
        text, ok = f"Theme: {name}", True
    else:
        text, ok = f"No theme {name!r}. Themes: {listed}.", False
    line = f"/theme {name}".rstrip()
    await app.query_one(ChatView).add(CommandOutput(line, text, ok))


async def rewound(app: ValarMindApp, _argument: str) -> None:
    """A typed /rewind --prompt N cut the conversation: show what is left."""
    said = list(app.query(CommandOutput))[-1:]
    await redraw(app)
    for output in said:  # what the command said stays in view
        await app.query_one(ChatView).add(CommandOutput(output.line, output.text))


async def pick_rewind(app: ValarMindApp, _argument: str = "") -> None:
    try:
        await _pick_rewind(app)
    except ValarMindError as exc:  # the checkpoints could not be read or restored
        app.notify(str(exc), severity="warning")


async def _pick_rewind(app: ValarMindApp) -> None:
    session = app.live
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
    if outcome.history is not None:
        await redraw(app)
    await app.query_one(ChatView).add(CommandOutput("/rewind", outcome.describe(),
                                                    not outcome.needs_answer))


async def redraw(app: ValarMindApp) -> None:
    """The conversation was cut: show what is left of it."""
    chat = app.query_one(ChatView)
    await chat.clear()
    if app.live.history:
        await app.show_resumed(app.live)


async def pick_resume(app: ValarMindApp, _argument: str = "") -> None:
    summaries = await session_choices(app.live)
    if not summaries:
        app.notify("No stored sessions for this project.")
        return
    chosen = await app.push_screen_wait(ResumePicker(summaries, app.live.session_id))
    if chosen and chosen != app.live.session_id:
        await switch(app, chosen)


async def switch(app: ValarMindApp, session_id: str) -> None:
    opened = await switch_session(app.live, session_id)
    app.workers.cancel_group(app, "bridge")
    await app.query_one(ChatView).clear()
    app.query_one(Sidebar).reset()
    status = app.query_one(StatusBar)  # the old session's spending is not the new one's
    status.tokens, status.cost = opened.totals.tokens, opened.totals.cost_usd
    await app.attach(opened)


ACTIONS: dict[str, Callable[[ValarMindApp, str], Awaitable[None]]] = {
    "quit": quit_app, "clear": clear, "theme": theme, "pick-rewind": pick_rewind,
    "pick-resume": pick_resume, "resume": switch, REWOUND: rewound,
}
"""What the TUI does after a command, by its action (`kind:argument`, CommandResult.action)."""
LISTS_ITSELF = ("pick-rewind", "pick-resume", "theme")
"""Actions that show their own outcome instead of the command's text (pickers list the
choices; the theme is known to the app only)."""
