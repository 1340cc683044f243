"""Walking a project the way git sees it: `.gitignore` files (at every level) and
`.git/info/exclude` respected, `.git` itself never entered.

Used by glob, tree_view, the pure-Python grep and the repo map outside a git repository, so
they all agree with ripgrep and git (tests check it against `git check-ignore`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from valarmind_tui.core.safe_files import is_system_tree
from valarmind_tui.safety.content import NotRegularFile, read_regular_bytes
from valarmind_tui.safety.paths import glob_regex

ALWAYS_SKIPPED = frozenset({".git"})


class IgnoreRule(NamedTuple):
    """One line of a .gitignore, relative to the directory holding it. (A NamedTuple: the
    repo map's warm scan imports this, and dataclasses would cost it ~20 ms.)"""

    base: str
    """POSIX path of that directory relative to the walk root ("" for the root)."""
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool
    anchored: bool

    def matches(self, rel_path: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not rel_path.startswith(self.base + "/"):
                return False
            rel_path = rel_path[len(self.base) + 1 :]
        subject = rel_path if self.anchored else rel_path.rsplit("/", 1)[-1]
        return self.regex.match(subject) is not None


def parse_ignore_lines(lines: list[str], base: str) -> list[IgnoreRule]:
    """The rules of one ignore file whose directory is `base` (relative to the walk root)."""
    rules: list[IgnoreRule] = []
    for raw in lines:
        line = raw.rstrip("\n\r")
        if not line.strip() or line.startswith("#"):
            continue
        if not line.endswith("\\ "):
            line = line.rstrip()
        negated = line.startswith("!")
        if negated or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        try:
            regex = glob_regex(line)
        except re.error:
            continue
        rules.append(IgnoreRule(base, regex, negated, dir_only, anchored))
    return rules


def read_rules(path: Path, base: str) -> list[IgnoreRule]:
    try:
        text = read_regular_bytes(path).decode("utf-8", errors="replace")
    except (OSError, NotRegularFile):  # a FIFO named .gitignore must not block the walk
        return []
    return parse_ignore_lines(text.splitlines(), base)


def is_ignored(rules: list[IgnoreRule], rel_path: str, is_dir: bool) -> bool:
    """Last matching rule wins, as in git."""
    ignored = False
    for rule in rules:
        if rule.matches(rel_path, is_dir):
            ignored = not rule.negated
    return ignored


class GitignoreWalker:
    """Lists what is not ignored under a root; rules from `root` down to any start directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._base_rules = read_rules(root / ".git" / "info" / "exclude", "")

    def rules_for(self, directory: Path) -> list[IgnoreRule]:
        """Every rule in force inside `directory` (its own .gitignore and its ancestors')."""
        rules = list(self._base_rules)
        rel = directory.relative_to(self.root)
        current = self.root
        rules += read_rules(current / ".gitignore", "")
        for part in rel.parts:
            current = current / part
            base = current.relative_to(self.root).as_posix()
            rules += read_rules(current / ".gitignore", base)
        return rules

    def is_ignored(self, path: Path) -> bool:
        """Is `path` (inside the root) ignored, itself or through an ignored parent?"""
        rel = path.relative_to(self.root)
        current = self.root
        for i, part in enumerate(rel.parts):
            if part in ALWAYS_SKIPPED:
                return True
            rules = self.rules_for(current)
            current = current / part
            is_dir = i < len(rel.parts) - 1 or current.is_dir()
            if is_ignored(rules, current.relative_to(self.root).as_posix(), is_dir):
                return True
        return False

    def entries(self, directory: Path, rules: list[IgnoreRule]) -> list[os.DirEntry[str]]:
        """The visible entries of one directory, sorted by name."""
        try:
            with os.scandir(directory) as it:
                found = sorted(it, key=lambda e: e.name)
        except OSError:
            return []
        visible = []
        for entry in found:
            if entry.name in ALWAYS_SKIPPED or is_system_tree(entry.path):
                continue
            rel = Path(entry.path).relative_to(self.root).as_posix()
            is_dir = entry.is_dir(follow_symlinks=False)
            if not is_ignored(rules, rel, is_dir):
                visible.append(entry)
        return visible

    def walk_files(self, start: Path) -> Iterator[Path]:
        """Every visible file under `start` (or `start` itself if it is a file), depth first.

        Symlinked directories are not followed (a link could lead out of the project).
        """
        if start.is_file():
            yield start
            return
        yield from self._walk(start, self.rules_for(start))

    def _walk(self, directory: Path, rules: list[IgnoreRule]) -> Iterator[Path]:
        for entry in self.entries(directory, rules):
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                base = path.relative_to(self.root).as_posix()
                yield from self._walk(path, rules + read_rules(path / ".gitignore", base))
            elif entry.is_file() and self._inside(entry, path):
                yield path

    def _inside(self, entry: os.DirEntry[str], path: Path) -> bool:
        """A symlinked file counts only if its target is inside the root too."""
        return not entry.is_symlink() or path.resolve().is_relative_to(self.root.resolve())

    def child_rules(self, directory: Path, rules: list[IgnoreRule]) -> list[IgnoreRule]:
        """The rules in force inside `directory`, given those of its parent."""
        base = directory.relative_to(self.root).as_posix()
        return rules + read_rules(directory / ".gitignore", base)
