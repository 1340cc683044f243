"""Who uses a name: the files whose tags reference it, and the line to show in each.

References in the tags are counted by name only, so the files are read again to find a line
(an import of the name, else a call, else any mention), and a Python file that imports the name
only from outside the project (`from html import escape`) is not counted as a user of the
project's definition. Used by the review's impact analysis and the repo_map tool's `callers`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

_IMPORT_FROM = re.compile(r"^\s*from\s+([.\w]+)\s+import\s+(\([^)]*\)|[^\n#]*)", re.M)

FileTagsIndex = dict[str, tuple[list, dict[str, int]]]
"""file -> (definitions as (name, line, kind, signature, parent), reference counts)."""


def referencing_files(index: FileTagsIndex, name: str, exclude: str = "") -> list[str]:
    """Files that reference `name` and do not define it themselves (their use may be theirs)."""
    return sorted(f for f, (defs, refs) in index.items()
                  if refs.get(name) and f != exclude and not any(d[0] == name for d in defs))


def referrer_lines(root: Path, files: list[str], name: str,
                   readable: Callable[[str], bool] = lambda rel: True,
                   located: int = 1_000_000) -> dict[str, int | None]:
    """For each file: the line to show (0 when none is found, the file may not be read, or it
    comes after the first `located` users), or None when it is not a user of the project's
    `name` after all."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    call = re.compile(rf"(?<![\w$]){re.escape(name)}\s*\(")
    imported = re.compile(rf"\bimport\b.*(?<![\w$]){re.escape(name)}(?![\w$])")
    tops = _top_level_modules(root) if files else set()
    out: dict[str, int | None] = {}
    for rel in files:
        try:
            text = (root / rel).read_text(errors="replace") if readable(rel) else ""
        except OSError:
            text = ""
        sources = [m.group(1) for m in _IMPORT_FROM.finditer(text) if word.search(m.group(2))]
        if rel.endswith((".py", ".pyi")) and sources and not any(
                s.startswith(".") or s.split(".")[0] in tops for s in sources):
            out[rel] = None
            continue
        out[rel] = _first_line(text, (imported, call, word)) if located > 0 else 0
        located -= 1
    return out


def callers(root: Path, index: FileTagsIndex, name: str, exclude: str = "",
            readable: Callable[[str], bool] = lambda rel: True,
            located: int = 1_000_000) -> list[tuple[str, int]]:
    """(file, line) of every file that uses `name`, sorted by file; the line is found for the
    first `located` files only (0 otherwise, or when unknown)."""
    files = referencing_files(index, name, exclude)
    lines = referrer_lines(root, files, name, readable, located)
    return [(f, line) for f in files if (line := lines[f]) is not None]


SOURCE_ROOTS = ("", "src", "lib", "python")
"""Where a project's top-level modules live: the root, and the usual source folders (a
src-layout's `from mypkg.app import greet` names `src/mypkg`)."""


def _top_level_modules(root: Path) -> set[str]:
    names: set[str] = set()
    for folder in SOURCE_ROOTS:
        try:
            names.update(p.name.removesuffix(".py") for p in (root / folder).iterdir())
        except OSError:
            continue
    return names


def _first_line(text: str, patterns: tuple[re.Pattern[str], ...]) -> int:
    lines = text.splitlines()
    for pattern in patterns:
        for number, line in enumerate(lines, 1):
            if pattern.search(line):
                return number
    return 0
