"""The temporary files of atomic writes, recorded so a killed process's can be cleared.

`safe_files.atomic_write` writes `.NAME.<token>.tmp` beside the file, then renames it over the
file; a process killed in between left the temporary file in the person's project for good. Each
write is recorded first in `user_data_dir()/left-writes/<pid>-<token>` (the temporary path), and
the record is removed with the write. At the next start, `sweep()` removes the temporary files
of records whose process is gone: only paths we recorded, only names of our pattern, never a
link, and never while the process that wrote them lives. Cheap: one small folder, no tree walk.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path

from valarmind_tui.core.user_dirs import user_data_dir

TEMP_NAME = re.compile(r"^\..+\.[0-9a-f]{16}\.tmp$")
"""The name of an atomic write's temporary file (`.NAME.<16 hex digits>.tmp`)."""


def temp_path(path: Path) -> tuple[Path, str]:
    """A fresh temporary path beside `path`, and its token."""
    token = secrets.token_hex(8)
    return path.parent / f".{path.name}.{token}.tmp", token


def record(temp: Path, token: str) -> Path | None:
    """Note `temp` before it is created; None when the note cannot be written (the write goes
    on: a read-only data folder must not stop an edit)."""
    folder = _folder()
    entry = folder / f"{os.getpid()}-{token}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(os.fsencode(temp))
    except OSError:
        return None
    return entry


def forget(entry: Path | None) -> None:
    if entry is not None:
        with contextlib.suppress(OSError):
            entry.unlink()


def sweep() -> list[Path]:
    """Remove the temporary files that processes no longer alive left; returns them."""
    try:
        entries = list(os.scandir(_folder()))
    except OSError:
        return []
    removed: list[Path] = []
    for entry in entries:
        pid_text, _, _token = entry.name.partition("-")
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        try:
            temp = Path(os.fsdecode(Path(entry.path).read_bytes()))
        except OSError:
            continue
        if TEMP_NAME.match(temp.name) and _remove_regular(temp):
            removed.append(temp)
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
    return removed


def _remove_regular(path: Path) -> bool:
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        path.unlink()
    except OSError:
        return False
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _folder() -> Path:
    return user_data_dir() / "left-writes"
