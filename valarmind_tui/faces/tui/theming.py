"""The app's themes: the shipped and the person's theme files, and which one shows.

The remembered theme (the last `/theme`) wins over the configured one (settings), which wins
over the default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from valarmind_tui.faces.tui import theme_files, themes


class AppTheming:
    """Loads the themes into one app and switches between them."""

    def __init__(self, app: App[Any], dirs: tuple[Path, ...] | None, remember: bool) -> None:
        self._app = app
        self._dirs = dirs or (theme_files.shipped_themes_dir(), theme_files.user_themes_dir())
        self._remember = remember
        self._saved: str | None = None

    def load(self) -> None:
        """Register every theme found (a broken file is a notification) and show the
        remembered one."""
        loaded = themes.load_themes(*self._dirs)
        for theme in loaded.themes:
            self._app.register_theme(theme)
        for error in loaded.errors:
            self._app.notify(error, title="Theme not loaded", severity="error", timeout=10)
        self._saved = theme_files.saved_theme() if self._remember else None
        self.apply_configured(None)

    def apply_configured(self, configured: str | None) -> None:
        """The remembered theme wins over the configured one, which wins over the default."""
        for name in (self._saved, configured, theme_files.DEFAULT_THEME):
            if name and name in self._app.available_themes:
                self._app.theme = name
                return

    def names(self) -> list[str]:
        """Every theme /theme can switch to: ValarMind's first, then Textual's own."""
        available = self._app.available_themes
        return sorted(available, key=lambda n: (not n.startswith("valarmind"), n))

    def switch(self, name: str) -> bool:
        """Switch to `name` and remember it; False (nothing changes) for an unknown name."""
        if name not in self._app.available_themes:
            return False
        self._app.theme = name
        if self._remember:
            themes.save_theme(name)
        return True

    def answer(self, name: str) -> tuple[str, bool]:
        """/theme NAME switches and says so; /theme lists the themes; an unknown name is an
        error that lists them (only the app knows which themes loaded, so it answers, not the
        command). The text and whether it worked."""
        name = name.strip()
        listed = ", ".join(self.names())
        if not name:
            return (f"Current theme: {self._app.theme}. Themes: {listed}. "
                    "Switch with /theme NAME.", True)
        if self.switch(name):
            return f"Theme: {name}", True
        return f"No theme {name!r}. Themes: {listed}.", False
