"""The project's source files, honouring .gitignore: `git ls-files` in a repository, a pruned
walk with the root .gitignore's patterns elsewhere (an unpacked source tarball, say)."""

from __future__ import annotations

import fnmatch
import os
import subprocess
from pathlib import Path

from valarmind_tui.safe_files import read_regular_text

IGNORED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", "target", ".idea",
    ".vscode", ".next", ".cache", "vendor", "bower_components", ".eggs", "site-packages",
    ".valarmind", "coverage", ".gradle", ".terraform",
})


GIT_TIMEOUT_S = 10.0
"""git blocks on a `.gitignore` that is a FIFO; past this the folder is walked instead."""


def list_files(root: Path) -> list[str]:
    """Relative POSIX paths of the project's files (tracked and untracked-not-ignored)."""
    listed = _git_files(root)
    if listed is None:
        listed = _walk(root)
    return sorted(p for p in listed if not any(part in IGNORED_DIRS for part in p.split("/")[:-1]))


def _git_files(root: Path) -> list[str] | None:
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(
            # a repository's own config must not make git run a program (fsmonitor)
            ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
             "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root, capture_output=True, timeout=GIT_TIMEOUT_S, check=True,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    names = {name for name in out.decode("utf-8", "surrogateescape").split("\0") if name}
    # Deleted-but-still-indexed files would fail to stat; keep what exists.
    return [n for n in names if os.path.isfile(os.path.join(root, n))]


def _walk(root: Path) -> list[str]:
    patterns = _gitignore_patterns(root)
    out: list[str] = []
    root_s = str(root)
    for dirpath, dirnames, filenames in os.walk(root_s):
        rel_dir = os.path.relpath(dirpath, root_s)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in IGNORED_DIRS and not d.endswith(".egg-info")
            and not _ignored(rel_dir + d, d, patterns, is_dir=True)
        )
        out.extend(rel_dir + f for f in filenames if not _ignored(rel_dir + f, f, patterns))
    return out


def _gitignore_patterns(root: Path) -> list[str]:
    try:
        text = read_regular_text(root / ".gitignore", errors="replace")
    except OSError:
        return []
    return [ln.strip() for ln in text.splitlines()
            if ln.strip() and not ln.startswith(("#", "!"))]


def _ignored(rel: str, name: str, patterns: list[str], *, is_dir: bool = False) -> bool:
    for pattern in patterns:
        if pattern.endswith("/"):
            if not is_dir:
                continue
            pattern = pattern[:-1]
        if "/" in pattern.strip("/"):
            if fnmatch.fnmatch(rel, pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatch(name, pattern.lstrip("/")):
            return True
    return False
