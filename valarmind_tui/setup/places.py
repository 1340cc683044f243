"""Where each tool keeps a kind of file, project and user level, and the one rule for reading
them: a project's folders only in a trusted folder, and only files that resolve inside it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.core.user_dirs import user_config_dir
from valarmind_tui.setup.report import Scope

UNTRUSTED = "this folder is not trusted (/trust yes, or --trust-project when headless)"


@dataclass(frozen=True)
class Place:
    """One folder a format is read from."""

    folder: Path
    scope: Scope
    tool: str
    root: Path
    """What every file found here must resolve inside: the project for a project's folder, `/`
    for the person's own (their skills are often links into a dotfiles repository)."""


def codex_home(home: Path) -> Path:
    """Codex's folder: `$CODEX_HOME`, else `~/.codex` (tests pass their own HOME)."""
    value = os.environ.get("CODEX_HOME")
    return Path(value) if value else home / ".codex"


def valarmind_user_dirs(home: Path) -> list[Path]:
    """ValarMind's own config folder: the XDG one, and `home`'s default when it differs."""
    dirs = [user_config_dir(), home / ".config" / "valarmind"]
    return list(dict.fromkeys(dirs))


def places(
    project_root: Path, project: list[tuple[str, str]], user: list[tuple[Path, str]],
) -> list[Place]:
    """Project folders (`relative path`, tool) first, then the user's (`folder`, tool): the
    project's name wins a clash, as a project's own file is the more specific one."""
    root = project_root.resolve()
    found = [Place(root / rel, Scope.PROJECT, tool, root) for rel, tool in project]
    found += [Place(folder, Scope.USER, tool, Path("/")) for folder, tool in user]
    return found


def files_in(place: Place, pattern: str) -> Iterator[Path]:
    """The files matching `pattern` under the place's folder, sorted, each resolving inside
    the place's root (a link out of the project is never followed)."""
    if not place.folder.is_dir():
        return
    for path in sorted(place.folder.glob(pattern)):
        if inside(path, place.root) and path.is_file():
            yield path


def inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True
