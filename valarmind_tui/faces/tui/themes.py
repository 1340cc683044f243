"""Themes: YAML files in `themes/` (shipped) and the user's config dir become Textual themes.

A theme file holds textual.theme.Theme fields plus `variables` (diff colours, muted text). A file
that does not parse or lacks fields is reported, never fatal. The chosen theme is remembered in
`<user config dir>/ui.toml`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from textual.theme import Theme

from valarmind_tui.faces.tui.theme_files import shipped_themes_dir, theme_paths, ui_state_file

_THEME_FIELDS = {f.name for f in dataclasses.fields(Theme)}


@dataclass
class LoadedThemes:
    """Themes that loaded, and one message per file that did not."""

    themes: list[Theme] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def theme_from_mapping(data: Any, source: str) -> Theme:
    """Build a Theme from a parsed YAML mapping; ValueError says what is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: expected a mapping of theme fields")
    unknown = sorted(set(data) - _THEME_FIELDS)
    if unknown:
        raise ValueError(f"{source}: unknown field(s) {', '.join(unknown)}")
    for required in ("name", "primary"):
        if not data.get(required):
            raise ValueError(f"{source}: missing `{required}`")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ValueError(f"{source}: `variables` must be a mapping")
    theme = Theme(**{**data, "variables": {str(k): str(v) for k, v in variables.items()}})
    try:
        theme.to_color_system().generate()
    except Exception as exc:  # a bad colour string raises from deep inside Textual
        raise ValueError(f"{source}: {exc}") from None
    return theme


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML has it: themes load at launch, ~7x faster."""


def load_theme_file(path: Path) -> Theme:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)  # noqa: S506
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    return theme_from_mapping(data, path.name)


def load_themes(*dirs: Path) -> LoadedThemes:
    """Every `*.yaml`/`*.yml` in `dirs` (later dirs override earlier names)."""
    loaded = LoadedThemes()
    by_name: dict[str, Theme] = {}
    for path in theme_paths(*dirs):
        try:
            theme = load_theme_file(path)
        except ValueError as exc:
            loaded.errors.append(f"Theme {exc}")
            continue
        by_name[theme.name] = theme
    loaded.themes = list(by_name.values())
    return loaded


def default_variables() -> dict[str, str]:
    """Fallbacks for our custom variables, taken from the shipped dark theme's file (read once:
    Textual asks for them each time it computes the CSS variables)."""
    return dict(_shipped_variables())


@cache
def _shipped_variables() -> dict[str, str]:
    try:
        return dict(load_theme_file(shipped_themes_dir() / "valarmind-dark.yaml").variables)
    except ValueError:
        return {}


def save_theme(name: str) -> Path:
    """Remember `name` in ui.toml (other keys kept)."""
    path = ui_state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = ""
    line = f"theme = {_toml_string(name)}"
    if re.search(r"(?m)^theme\s*=.*$", text):
        text = re.sub(r"(?m)^theme\s*=.*$", lambda _m: line, text)
    else:
        text = (text.rstrip("\n") + "\n" if text.strip() else "") + line + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
