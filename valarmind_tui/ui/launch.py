"""`valarmind`'s full-screen face: the app is built around a session factory, so the first frame
is painted before settings and the Session (and their imports) exist (ui.session_start)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.ui.app import ValarMindApp

if TYPE_CHECKING:
    from valarmind_tui.config import Settings
    from valarmind_tui.session import Session


def build_app(
    settings: Settings | Callable[..., Settings], root: Path, args: argparse.Namespace | Any,
) -> ValarMindApp:
    """The app for `valarmind`; settings (or their loader) and the Session are built in a thread
    after the first frame, so their imports are not on the launch path."""
    resume = getattr(args, "resume", None)

    def open_session(trusted: bool | None = None) -> Session:
        from valarmind_tui.session import Session

        if not callable(settings):
            loaded = settings
        else:
            loaded = settings() if trusted is None else settings(trusted)
        return Session.open(loaded, root, resume=resume)

    return ValarMindApp(session_factory=open_session, project_root=root,
                        ask_trust=callable(settings))


def run_app(
    settings: Settings | Callable[..., Settings], root: Path, args: argparse.Namespace | Any,
) -> int:
    """`valarmind`: the full-screen face. A config or usage error met while starting is raised
    after the screen is restored (the CLI prints it)."""
    app = build_app(settings, root, args)
    result = app.run()
    if app.startup_error is not None:
        raise app.startup_error
    return int(result or 0)
