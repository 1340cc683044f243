"""Reading a file that a repository ships without letting it block us: a FIFO named
`package.json`, `.gitignore` or `x.md` would hang an ordinary `open()` forever. Only regular
files are read; anything else raises OSError (which callers already handle as "unreadable")."""

from __future__ import annotations

import os
import stat
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
