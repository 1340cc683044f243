"""What the prompt offers to complete: /commands (with their help) and @paths in the project."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from valarmind_tui.faces.tui.widgets.prompt import Completion

_AT_TOKEN = re.compile(r"(?:^|\s)@(\S*)$")
_MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"}


def complete_command(registry: Any, before_cursor: str, ctx: Any = None,
                     choices: Mapping[str, Sequence[str]] | None = None) -> list[Completion]:
    """`/na` → the commands starting with `na`, each with its one-line help; `/theme da` →
    the command's values starting with `da` (from `choices`, given by the face for what
    only it knows, else from the command's own `choices` read from `ctx`)."""
    if not before_cursor.startswith("/"):
        return []
    name, space, typed = before_cursor[1:].partition(" ")
    if not space:
        return [Completion(value=f"/{c.name}", help=c.help, start=0)
                for c in registry.complete(before_cursor)]
    if any(ch.isspace() for ch in typed):
        return []  # only the first argument is completed
    command = registry.get(name)
    if command is None:
        return []
    values: Sequence[str] = ()
    if choices is not None and name in choices:
        values = choices[name]
    elif command.choices is not None and ctx is not None:
        values = command.choices(ctx)
    start = len(name) + 2
    return [Completion(value=v, help=command.help, start=start)
            for v in dict.fromkeys(values) if v.startswith(typed)]


def complete_path(root: Path, before_cursor: str, limit: int = 50) -> list[Completion]:
    """`@src/ma` → entries of `<root>/src` starting with `ma` (directories end in `/`)."""
    match = _AT_TOKEN.search(before_cursor)
    if match is None:
        return []
    typed = match.group(1)
    start = match.start(1) - 1
    folder, _, stem = typed.rpartition("/")
    base = (root / folder).resolve()
    if not base.is_relative_to(root.resolve()) or not base.is_dir():
        return []
    found = []
    try:
        entries = sorted(os.scandir(base), key=lambda e: (not e.is_dir(), e.name))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith(stem) or entry.name in _SKIP_DIRS:
            continue
        if entry.name.startswith(".") and not stem.startswith("."):
            continue
        is_dir = entry.is_dir()
        rel = f"{folder}/{entry.name}" if folder else entry.name
        found.append(
            Completion(value="@" + rel + ("/" if is_dir else ""),
                       help="folder" if is_dir else "attach file", start=start)
        )
        if len(found) >= limit:
            break
    return found


def mentioned_paths(text: str) -> list[str]:
    """The `@path` mentions of a prompt, in order, without duplicates."""
    seen: list[str] = []
    for match in _MENTION.finditer(text):
        path = match.group(1).rstrip(".,;:!?)")
        if path and path not in seen:
            seen.append(path)
    return seen
