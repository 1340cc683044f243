"""The work tree's files as a checkpoint reads and restores them, never through a symlink.

A snapshot records a link as a link and reads nothing beyond it: a folder the agent swapped for a
link to outside leaves the project with everything under it. A restore replaces a link standing
where a file or folder goes back, and never removes a file under a linked folder (that file is
outside the project).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from valarmind_tui.core.safe_files import atomic_write


def under_real_dirs(root: Path, relpath: str, known: dict[str, bool]) -> bool:
    """Whether every folder above `relpath` is a real directory of the project. A folder the
    agent swapped for a symlink is recorded as the link; what lies beyond it is outside and is
    never read (git refuses it: "beyond a symbolic link"). `known` caches folders checked."""
    parts = relpath.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        real = known.get(folder)
        if real is None:
            try:
                real = stat.S_ISDIR(os.lstat(root / folder).st_mode)
            except OSError:
                real = False
            known[folder] = real
        if not real:
            return False
    return True


def remove_file(path: Path, root: Path) -> bool:
    """Remove one file (never through a symlinked folder: that file is outside the project)."""
    if any((root / parent).is_symlink() for parent in path.relative_to(root).parents):
        return False
    try:
        if path.is_dir() and not path.is_symlink():
            return False
        path.unlink()
    except (FileNotFoundError, NotADirectoryError):  # gone, or a file now where a folder was
        return False
    parent = path.parent
    while parent != root:
        try:
            parent.rmdir()  # only when the removal left it empty
        except OSError:
            break
        parent = parent.parent
    return True


def write_file(root: Path, relpath: str, data: bytes, mode: str) -> None:
    """Byte for byte, atomically; the executable bit as recorded, other bits kept."""
    path = root / relpath
    for parent in reversed(Path(relpath).parents):
        full = root / parent
        if full != root and (full.is_symlink() or full.is_file()):
            full.unlink()  # a file or link where the checkpoint had a folder: never followed
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = os.lstat(path)
    except FileNotFoundError:
        old = None
    if old is not None and stat.S_ISDIR(old.st_mode):
        path.rmdir()  # only an empty one: OSError otherwise, and the path is reported
        old = None
    if mode == "120000":
        if old is not None:
            path.unlink()
        os.symlink(os.fsdecode(data), path)
        return
    perms = stat.S_IMODE(old.st_mode) if old is not None and stat.S_ISREG(old.st_mode) else 0o644
    perms = perms | ((perms & 0o444) >> 2) if mode == "100755" else perms & ~0o111
    atomic_write(path, data, mode=perms)
