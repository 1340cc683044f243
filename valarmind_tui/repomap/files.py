"""The project's source files, honouring .gitignore: `git ls-files` in a repository, a pruned
walk with the .gitignore files' rules elsewhere (an unpacked source tarball, say), matched by the
same rules as glob and grep (`safety.ignore`).

Files are untrusted: a symlink is mapped only when it resolves to a regular file inside the
project, a path under a folder swapped for a symlink is left out, and `read_checked` reads a file
only when it is still the one the scan stamped (so nothing outside the project is ever read, even
when a file is swapped between the scan and the read).

A file's stamp is (mtime_ns, size, ctime_ns, inode). No tool can set ctime, so an edit that
keeps the size and restores the mtime still changes the stamp, and a file replaced by a rename
has a new inode. What a stamp cannot see is an edit in the same clock tick as the stamp: a file
changed within RACY_NS of a scan is "racy" (git's word) and is known by its content's digest too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

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
RACY_NS = 3_000_000_000
"""A file whose mtime or ctime is this close to the scan may still change within the same
timestamp tick (a coarse kernel clock; 1-2 s on FAT, HFS+ and some network file systems)."""
MAX_FILE_BYTES = 1_000_000
"""Bigger files are skipped as huge (data dumps, vendored bundles): one byte more is read."""

Stamp = tuple[int, int, int, int]
"""(mtime_ns, size, ctime_ns, inode)."""
Entry = tuple[str, int, int, int, int]
"""(relative POSIX path, mtime_ns, size, ctime_ns, inode)."""


class Changed(OSError):
    """The file is no longer the one the scan stamped (edited, replaced or swapped)."""


class ListingMemo(Protocol):
    """Where the filtered listing of a git repository is kept between runs (the cache)."""

    def get_listing(self, key: str) -> list[str] | None: ...

    def put_listing(self, key: str, names: list[str]) -> None: ...


def list_files(root: Path) -> list[str]:
    """Relative POSIX paths of the project's files (tracked and untracked-not-ignored)."""
    return [e[0] for e in scan(root, lambda rel: True)]


def scan(root: Path, wanted: Callable[[str], bool], memo: ListingMemo | None = None,
         memo_tag: str = "") -> list[Entry]:
    """Every regular project file whose path is `wanted`, with its stamp, sorted: one stat per
    file, never a read. `memo` keeps git's filtered listing (keyed by git's output and
    `memo_tag`, which names `wanted`), so a warm scan filters no names."""
    listed = _git_listing(root)
    root_s = os.path.realpath(root)  # a symlink's target is checked against the real root
    if listed is None:
        found = _walk(root_s, wanted)
        found.sort()
        return [e for e in found if not _in_ignored_dir(e[0])]
    key = hashlib.sha1(memo_tag.encode() + b"\0" + listed).hexdigest() if memo else ""
    names = memo.get_listing(key) if memo else None
    if names is None:
        # Which files are wanted is decided on the names first: a stat costs ~3 us of CPU
        # here, and a warm map of a big tree is mostly its stats.
        unique = set(listed.decode("utf-8", "surrogateescape").split("\0"))
        unique.discard("")
        names = sorted(rel for rel in unique if wanted(rel) and not _in_ignored_dir(rel))
        if memo:
            memo.put_listing(key, names)
    return _stat_all(root_s, names)


def is_racy(entry: Entry, now_ns: int) -> bool:
    """Whether the file changed so recently that its stamp alone cannot vouch for it."""
    return max(entry[1], entry[3]) > now_ns - RACY_NS


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_checked(path: str, stamp: Stamp | None = None) -> bytes:
    """The bytes of a regular file (at most MAX_FILE_BYTES + 1), in four system calls. With a
    `stamp`, only when the file opened is still the one stamped (Changed otherwise): a file or
    folder swapped for a symlink out of the project since the scan is never read. O_NONBLOCK:
    a file swapped for a FIFO cannot block the open; anything but a regular file is refused
    before a read."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if (info.st_mode & 0o170000) != 0o100000:
            raise OSError(f"{path} is not a regular file")
        if stamp is not None and stamp != (info.st_mtime_ns, info.st_size, info.st_ctime_ns,
                                           info.st_ino):
            raise Changed(f"{path} changed since the scan")
        want = min(info.st_size, MAX_FILE_BYTES) + 1
        data = os.read(fd, want)
        if len(data) < want:  # a short read of a regular file is its end
            return data
        chunks = [data]
        total = len(data)
        while total <= MAX_FILE_BYTES:
            more = os.read(fd, 65536)
            if not more:
                break
            chunks.append(more)
            total += len(more)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _in_ignored_dir(rel: str) -> bool:
    folders = rel.split("/")[:-1]
    return bool(folders) and not IGNORED_DIRS.isdisjoint(folders)


def _stat_all(root: str, names: list[str]) -> list[Entry]:
    """The entry of each name that is a regular file in the project, or a symlink to one (one
    deleted but still in git's index is left out, and so is one under a folder that became a
    symlink)."""
    lstat = os.lstat
    prefix = root + "/"
    dirs: dict[str, bool] = {"": True}
    found: list[Entry] = []
    append = found.append
    for rel in names:
        folder = rel.rpartition("/")[0]
        real = dirs.get(folder)
        if real is None:
            real = _real_folder(prefix, folder, dirs)
        if not real:
            continue
        try:
            st = lstat(prefix + rel)
        except OSError:
            continue
        kind = st.st_mode & 0o170000
        if kind == 0o100000:
            append((rel, st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino))
        elif kind == 0o120000:
            target = _link_target_stat(root, rel)
            if target is not None:
                append((rel, *target))
    return found


def _real_folder(prefix: str, folder: str, dirs: dict[str, bool]) -> bool:
    """Whether every component of `folder` is a folder, not a symlink (memoised in `dirs`)."""
    parent = folder.rpartition("/")[0]
    real = dirs.get(parent)
    if real is None:
        real = _real_folder(prefix, parent, dirs)
    if real:
        try:
            real = (os.lstat(prefix + folder).st_mode & 0o170000) == 0o040000
        except OSError:
            real = False
    dirs[folder] = real
    return real


def _link_target_stat(root: str, rel: str) -> Stamp | None:
    """The stamp of the regular file a symlink resolves to, when that file is in the project."""
    target = os.path.realpath(os.path.join(root, rel))
    if not target.startswith(root + "/"):
        return None
    try:
        st = os.stat(target)
    except OSError:
        return None
    if (st.st_mode & 0o170000) != 0o100000:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino


def _git_listing(root: Path) -> bytes | None:
    """`git ls-files` of the tracked and untracked-not-ignored files, as git wrote it."""
    if not (root / ".git").exists() or not _ignore_files_readable(root):
        return None
    import subprocess  # only in a repository: the walk does not need it

    from valarmind_tui.safety.git_hardening import RepositoryRefused, harden

    try:
        # a repository's own config must not make git run a program (fsmonitor) or leave root
        git = harden(root)
        return subprocess.run(
            [*git.argv, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=git.root, env=git.env, capture_output=True, timeout=GIT_TIMEOUT_S, check=True,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError, RepositoryRefused):
        return None


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
    """A walk that never enters ignored folders nor follows a symlinked one; a symlinked file is
    kept when it resolves to a regular file in the project."""
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
                    out.append((rel, st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino))
                elif (entry.is_symlink() and wanted(rel) and not is_ignored(rules, rel, False)
                      and (target := _link_target_stat(root, rel)) is not None):
                    out.append((rel, *target))
            except OSError:
                continue
    return out
