"""Files read and written safely, the one place for both.

Reading: a FIFO a repository ships as `package.json`, `.gitignore` or `x.md` would hang an
ordinary `open()` forever, so only regular files are read; anything else raises OSError (which
callers already handle as "unreadable"). Writing: through a temporary file in the same folder and
a rename, so a failed write leaves the old file intact and keeps its mode.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def read_regular_bytes(path: Path | str) -> bytes:
    """The bytes of a regular file (symlinks followed); OSError for FIFOs, devices, sockets."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file; not read")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def read_regular_text(path: Path | str, errors: str = "strict") -> str:
    return read_regular_bytes(path).decode("utf-8", errors=errors)


def atomic_write(path: Path, content: str) -> None:
    """Write via a temp file in the same directory and os.replace; an existing file keeps its
    mode, and on any failure the old file is left as it was."""
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(path.stat().st_mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
