"""`valarmind`'s full-screen face: the app is built around a session factory, so the first frame
is painted before settings and the Session (and their imports) exist (ui.session_start)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.drivers.linux_driver import LinuxDriver

from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.skeleton import ENTER_ALT_SCREEN, Skeleton

if TYPE_CHECKING:
    from valarmind_tui.session.session import Session
    from valarmind_tui.settings.config import Settings


def build_app(
    settings: Settings | Callable[..., Settings], root: Path, args: argparse.Namespace | Any,
) -> ValarMindApp:
    """The app for `valarmind`; settings (or their loader) and the Session are built in a thread
    after the first frame, so their imports are not on the launch path."""
    resume = getattr(args, "resume", None)

    def make_session(trusted: bool | None = None) -> Session:
        from valarmind_tui.session.wiring import open_session

        if not callable(settings):
            loaded = settings
        else:
            loaded = settings() if trusted is None else settings(trusted)
        return open_session(loaded, root, resume=resume)

    return ValarMindApp(session_factory=make_session, project_root=root,
                        ask_trust=callable(settings),
                        first_prompt=getattr(args, "first_prompt", None))


def run_app(
    settings: Settings | Callable[..., Settings], root: Path, args: argparse.Namespace | Any,
    skeleton: Skeleton | None = None,
) -> int:
    """`valarmind`: the full-screen face, taking the screen over from `skeleton` (the first
    frame, painted before Textual loaded). A config or usage error met while starting is raised
    after the screen is restored (the CLI prints it)."""
    app = build_app(settings, root, args)
    if skeleton is not None:
        if issubclass(app.driver_class, LinuxDriver):
            app.driver_class = taking_over(skeleton, app.driver_class)
        else:
            skeleton.abandon()
    result = app.run()
    if app.startup_error is not None:
        raise app.startup_error
    if app.exit_transcript is not None and app.session is not None:
        import sys

        from valarmind_tui.faces.tui.scrollback import print_conversation

        print_conversation(app.exit_transcript, app.session.session_id or "?", sys.stdout)
        sys.stdout.flush()
    return int(result or 0)


def taking_over(skeleton: Skeleton, base: type[LinuxDriver]) -> type[LinuxDriver]:
    """`base` that starts on the skeleton's alternate screen instead of entering it again (a
    second enter would make some terminals save the cursor twice, so the shell's prompt would
    come back in the wrong place) and gives back, at exit, the terminal modes from before the
    skeleton changed them; after a suspend it enters as usual."""

    class TakingOver(base):  # type: ignore[misc,valid-type]  # why: a subclass of a runtime type
        _entering = False

        def start_application_mode(self) -> None:
            self._entering = not skeleton.taken_over
            skeleton.taken_over = True
            try:
                super().start_application_mode()
                if self._entering and skeleton.terminal_attributes is not None:
                    self.attrs_before = skeleton.terminal_attributes  # restored at exit
            finally:
                self._entering = False

        def write(self, data: str) -> None:
            if self._entering and data == ENTER_ALT_SCREEN:
                return
            super().write(data)

    return TakingOver
