"""What calls the person back, attached with the session: notifications while the terminal is
not focused (session/notifications.py) and the person's own status line (status_line.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App

from valarmind_tui.faces.tui.event_routing import EventRouter
from valarmind_tui.faces.tui.status_line import StatusLine, session_state
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.session.notifications import Notifier

if TYPE_CHECKING:
    from valarmind_tui.session.session import Session


def attach(app: App[Any], router: EventRouter, session: Session,
           write: Callable[[str], None]) -> None:
    """Give `router` the session's notifier, and its status line when the person set one."""
    focused = router.notifier.focused if router.notifier is not None else None
    router.notifier = Notifier(session.settings, write)
    router.notifier.focused = focused  # /resume: the terminal's focus did not change
    command = session.settings.status_line
    if not command:
        router.on_state_changed = lambda: None
        return
    windows: dict[str | None, int | None] = {}
    status = app.query_one(StatusBar)

    async def state() -> dict[str, Any]:
        """Never waits for the model's window: the model process may still be importing its
        library (seconds on a loaded machine); the line shows at once and again with it."""
        model = session.model
        if model and model not in windows:
            from valarmind_tui.providers.model_info import context_window

            windows[model] = None
            asked = asyncio.ensure_future(asyncio.to_thread(context_window, model))
            asked.add_done_callback(lambda done: _known(done, model))
        return session_state(session, status, router.context_tokens, windows.get(model))

    def _known(done: asyncio.Future[int], model: str) -> None:
        if not done.cancelled() and done.exception() is None:
            windows[model] = done.result()
            line.changed()

    def show(line: str | None) -> None:
        status.custom = line

    def warn(message: str) -> None:
        app.notify(message, severity="warning", timeout=8, markup=False)

    line = StatusLine(command, session.project_root, state, show, warn)
    router.on_state_changed = line.changed
    line.changed()


def focused(router: EventRouter, focus: bool) -> None:
    """The terminal reported gaining or losing the focus (mode 1004)."""
    if router.notifier is not None:
        router.notifier.focused = focus
