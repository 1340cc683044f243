"""Where themes live and which one was chosen last; light enough for the first frame (no YAML,
no Textual: ui.skeleton reads these before either is imported)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from valarmind_tui.core.user_dirs import user_config_dir

DEFAULT_THEME = "valarmind-dark"


def shipped_themes_dir() -> Path:
    """The package's `themes/`: in a checkout a link to the top-level `themes/`, in a wheel
    (pip, pipx, uv tool) the files themselves."""
    import valarmind_tui

    return Path(valarmind_tui.__file__).resolve().parent / "themes"


def user_themes_dir() -> Path:
    return user_config_dir() / "themes"


def theme_paths(*dirs: Path) -> list[Path]:
    """Every `*.yaml`/`*.yml` in `dirs` (the shipped, then the person's, by default), in the
    order where a later file overrides an earlier one of the same name."""
    paths: list[Path] = []
    for directory in dirs or (shipped_themes_dir(), user_themes_dir()):
        if directory.is_dir():
            paths += sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])
    return paths


def ui_state_file() -> Path:
    return user_config_dir() / "ui.toml"


def saved_theme() -> str | None:
    """The theme /theme last chose, or None."""
    try:
        data = tomllib.loads(ui_state_file().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    name = data.get("theme")
    return name if isinstance(name, str) and name else None
