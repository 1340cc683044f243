"""Files read and written safely, the one place for both.

Reading: a FIFO a repository ships as `package.json`, `.gitignore` or `x.md` would hang an
ordinary `open()` forever, so only regular files are read; anything else raises OSError (which
callers already handle as "unreadable"). Writing: through a temporary file in the same folder and
a rename, so a failed write leaves the old file intact and keeps its mode. A writer that read the
file first passes `unchanged`, checked just before the rename under a lock on the folder that
every atomic write of ours takes: another run that wrote the file in between (two `valarmind -p`
on one file) makes the write fail with ChangedOnDisk instead of silently undoing its edit.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from valarmind_tui.core import left_writes

SYSTEM_TREES = frozenset({"/proc", "/sys", "/dev", "/run"})
"""Kernel and runtime trees a file walk never enters (a project at `/` or one that links them
in): their entries come and go under the walk, and reading some of them blocks or never ends."""


def is_system_tree(path: str) -> bool:
    return path in SYSTEM_TREES


class NotRegular(OSError):
    """A path that is a FIFO, device, socket or directory: reading it could hang or never end."""


def file_kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symlink"))
    return next((label for test, label in kinds if test(mode)), "a special file")


def check_regular(path: Path | str, shown: str | None = None) -> os.stat_result:
    """The file's stat (symlinks followed); NotRegular unless it is a regular file."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        name = shown or str(path)
        raise NotRegular(f"{name} is {file_kind(info.st_mode)}, not a regular file; not read.")
    return info


def open_regular(path: Path | str, shown: str | None = None) -> BinaryIO:
    """Open a regular file for binary reading; refuses anything else before opening, and opens
    with O_NONBLOCK so a file swapped for a FIFO in between cannot block the open."""
    check_regular(path, shown)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(f"{shown or path} is not a regular file; not read.")
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(
    path: Path | str, shown: str | None = None, limit: int | None = None
) -> bytes:
    """The bytes of a regular file (at most `limit`); NotRegular (an OSError) otherwise."""
    with open_regular(path, shown) as handle:
        return handle.read() if limit is None else handle.read(limit)


def read_regular_text(path: Path | str, errors: str = "strict") -> str:
    return read_regular_bytes(path).decode("utf-8", errors=errors)


class ChangedOnDisk(OSError):
    """The file is no longer what the writer read: another program wrote it in between, and
    writing would undo that change. Nothing was written."""


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive flock on the folder itself (no lock file to create, none left behind),
    held only for the check and the rename."""
    fd: int | None = None
    with contextlib.suppress(OSError):  # a folder we may write but not read: no lock, the
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)  # check still runs
                     | getattr(os, "O_CLOEXEC", 0))
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def atomic_write(path: Path, content: str | bytes, *, mode: int | None = None,
                 unchanged: Callable[[], bool] | None = None) -> None:
    """Write via a temp file in the same directory and os.replace; the file gets `mode`, else
    an existing file keeps its own, and on any failure the old file is left as it was.
    `unchanged`, when given, is asked under the folder's lock just before the rename whether
    the file is still what the caller read; when not, ChangedOnDisk and nothing is written."""
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(path.stat().st_mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp, token = left_writes.temp_path(path)
    tmp_name = str(temp)
    entry = left_writes.record(temp, token)  # cleared at the next start if we are killed
    try:
        fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o600)
    except BaseException:
        left_writes.forget(entry)
        raise
    try:
        data = content.encode("utf-8") if isinstance(content, str) else content
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp_name, mode)
        with _folder_lock(path.parent):
            if unchanged is not None and not unchanged():
                raise ChangedOnDisk(f"{path.name} changed on disk while it was being written")
            os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    finally:
        left_writes.forget(entry)
