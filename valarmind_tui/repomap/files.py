"""The project's source files, honouring .gitignore: `git ls-files` in a repository, a pruned
walk with the .gitignore files' rules elsewhere (an unpacked source tarball, say), matched by the
same rules as glob and grep (`safety.ignore`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from valarmind_tui.safety.ignore import IgnoreRule

IGNORED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", "target", ".idea",
    ".vscode", ".next", ".cache", "vendor", "bower_components", ".eggs", "site-packages",
    ".valarmind", "coverage", ".gradle", ".terraform",
})


GIT_TIMEOUT_S = 10.0
"""git blocks on a `.gitignore` that is a FIFO (a top one is seen before git runs: see
_ignore_files_readable); past this the folder is walked instead."""

Entry = tuple[str, int, int]
"""(relative POSIX path, mtime_ns, size)."""


def list_files(root: Path) -> list[str]:
    """Relative POSIX paths of the project's files (tracked and untracked-not-ignored)."""
    return [rel for rel, _, _ in scan(root, lambda rel: True)]


def scan(root: Path, wanted: Callable[[str], bool]) -> list[Entry]:
    """Every regular project file whose path is `wanted`, with its stamp, sorted: one stat per
    file, never a read."""
    listed = _git_files(root)
    root_s = str(root)
    if listed is None:
        found = _walk(root_s, wanted)
        found.sort()
        return [e for e in found if not _in_ignored_dir(e[0])]
    # Which files are wanted is decided on the names first: a stat costs ~10 us here, and a
    # warm map of a big tree is mostly its stats.
    names = sorted(rel for rel in listed if wanted(rel) and not _in_ignored_dir(rel))
    return _stat_all(root_s + "/", names)


def _in_ignored_dir(rel: str) -> bool:
    folders = rel.split("/")[:-1]
    return bool(folders) and not IGNORED_DIRS.isdisjoint(folders)


def _stat_all(prefix: str, names: list[str]) -> list[Entry]:
    """(name, mtime_ns, size) of each name that is a regular file (one deleted but still in
    git's index is left out)."""
    stat = os.stat
    found: list[Entry] = []
    append = found.append
    for rel in names:
        try:
            st = stat(prefix + rel)
        except OSError:
            continue
        if (st.st_mode & 0o170000) == 0o100000:
            append((rel, st.st_mtime_ns, st.st_size))
    return found


def _git_files(root: Path) -> list[str] | None:
    if not (root / ".git").exists() or not _ignore_files_readable(root):
        return None
    import subprocess  # only in a repository: the walk does not need it

    from valarmind_tui.safety.git_hardening import RepositoryRefused, harden

    try:
        # a repository's own config must not make git run a program (fsmonitor) or leave root
        git = harden(root)
        out = subprocess.run(
            [*git.argv, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=git.root, env=git.env, capture_output=True, timeout=GIT_TIMEOUT_S, check=True,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError, RepositoryRefused):
        return None
    names = set(out.decode("utf-8", "surrogateescape").split("\0"))
    names.discard("")
    return list(names)


def _ignore_files_readable(root: Path) -> bool:
    """False when a top ignore file git reads is there but not a regular file: git blocks
    reading a FIFO until GIT_TIMEOUT_S, so walk at once."""
    from valarmind_tui.core.safe_files import NotRegular, check_regular

    for path in (root / ".gitignore", root / ".git" / "info" / "exclude"):
        try:
            check_regular(path)
        except NotRegular:
            return False
        except OSError:  # absent (or a dangling symlink): nothing for git to read
            continue
    return True


def _walk(root: str, wanted: Callable[[str], bool]) -> list[Entry]:
    """A walk that never enters ignored folders; symlinks are not followed."""
    from valarmind_tui.core.safe_files import is_system_tree
    from valarmind_tui.safety.ignore import is_ignored, read_rules  # only when git is absent

    out: list[Entry] = []
    stack: list[tuple[str, str, list[IgnoreRule]]] = [("", root, [])]
    while stack:
        rel_dir, path, rules = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError:
            continue
        if any(e.name == ".gitignore" for e in entries):
            rules = rules + read_rules(Path(path, ".gitignore"), rel_dir.rstrip("/"))
        for entry in entries:
            rel = rel_dir + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if (entry.name not in IGNORED_DIRS and not entry.name.endswith(".egg-info")
                            and not is_system_tree(entry.path)
                            and not is_ignored(rules, rel, True)):
                        stack.append((rel + "/", entry.path, rules))
                elif (entry.is_file(follow_symlinks=False) and wanted(rel)
                      and not is_ignored(rules, rel, False)):
                    st = entry.stat(follow_symlinks=False)
                    out.append((rel, st.st_mtime_ns, st.st_size))
            except OSError:
                continue
    return out
