"""Changing config files the way a person would: tomlkit keeps their comments, spelling and order
(an inline `permissions = {...}`, dotted keys, a comment on a header line all survive), and the
file is replaced atomically, so a failed write leaves the old one intact."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from valarmind_tui.core.errors import ConfigError
from valarmind_tui.core.safe_files import atomic_write
from valarmind_tui.core.user_dirs import user_config_dir

PROJECT_DIR = ".valarmind"


def user_config_path() -> Path:
    return user_config_dir() / "config.toml"


def project_config_path(project_root: Path) -> Path:
    return project_root / PROJECT_DIR / "config.toml"


def read_user_config() -> dict[str, Any]:
    """The user's config as data; {} when it is missing or broken (load_settings reports that)."""
    try:
        return tomllib.loads(user_config_path().read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def edit_toml(path: Path, change: Callable[[Any], None]) -> Path:
    """Apply `change` to the parsed document at `path` (created when missing) and save it."""
    import tomlkit  # here: every run reads settings, few write them (~30 ms of import)
    from tomlkit.exceptions import TOMLKitError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=path) from None
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"not valid TOML, not changed: {exc}", file=path,
                          line=getattr(exc, "line", None)) from None
    change(doc)
    atomic_write(path, tomlkit.dumps(doc))
    return path


def edit_user_config(change: Callable[[Any], None]) -> Path:
    return edit_toml(user_config_path(), change)


def add_allow_rule(project_root: Path, rule: str) -> Path:
    """Add `rule` to `[permissions] allow` in the project's config.toml."""

    def change(doc: Any) -> None:
        permissions = doc.get("permissions")
        if permissions is None:
            import tomlkit

            permissions = tomlkit.table()
            doc["permissions"] = permissions
        allow = permissions.get("allow")
        if allow is None:
            permissions["allow"] = [rule]
        elif rule not in allow:
            allow.append(rule)

    return edit_toml(project_config_path(project_root), change)
