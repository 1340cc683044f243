"""What a killed ValarMind leaves behind: a record per live background command, reaped later.

Each running background command has `<handle>.json` beside its output ring: its process group,
the start time the kernel gives its leader (so a reused pid is never taken for it), and the
ValarMind process that owns it, with that process's own start time. A session that ends
normally removes its records as it ends its commands. At start-up `reap_leftovers` finds the
records whose owner is gone and kills their process group (unless the person kept that command
alive), so a `kill -9` of ValarMind does not leave a dev server running for ever.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

RECORD_SUFFIX = ".json"


@dataclass(frozen=True)
class JobRecord:
    """One background command as a later process needs to find it."""

    handle: str
    command: str
    pgid: int
    started: int
    """Its leader's start time (clock ticks since boot, /proc/PID/stat field 22)."""
    owner_pid: int
    owner_started: int
    kept: bool = False
    """The person asked for it to outlive the session: never reaped."""


def stat_fields(stat: Path) -> list[str] | None:
    """A /proc/PID/stat file's fields after the command's name (fields[0] is field 3, the
    state; [1] the parent, [2] the group, [19] the start time), None when it is gone."""
    try:
        return stat.read_text(encoding="ascii", errors="replace").rpartition(")")[2].split()
    except OSError:
        return None


def process_stats() -> Iterator[tuple[int, list[str]]]:
    """Every process's pid and `stat_fields` (blocking: reads /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = stat_fields(stat)
        if fields is not None:
            yield int(stat.parent.name), fields


def process_start(pid: int) -> int | None:
    """The start time of process `pid` (clock ticks since boot), None when it is gone."""
    fields = stat_fields(Path(f"/proc/{pid}/stat"))
    try:
        return int(fields[19]) if fields is not None else None
    except (IndexError, ValueError):
        return None


def alive(pid: int, started: int) -> bool:
    """The process `pid` is the one that started at `started` and still runs (a zombie is
    not running)."""
    if process_start(pid) != started:
        return False
    state = stat_fields(Path(f"/proc/{pid}/stat"))
    return state is not None and bool(state) and state[0] not in ("Z", "X")


def group_alive(pgid: int, started: int) -> bool:
    """A process of group `pgid` runs that started no earlier than its leader did (the leader
    may have exited while its children run on; the kernel does not hand out a pid still used
    as a process group's id)."""
    for _, fields in process_stats():
        try:
            if int(fields[2]) == pgid and int(fields[19]) >= started and fields[0] not in "ZX":
                return True
        except (IndexError, ValueError):
            continue
    return False


def write_record(folder: Path, record: JobRecord) -> None:
    path = folder / f"{record.handle}{RECORD_SUFFIX}"
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(asdict(record), out)
    os.replace(tmp, path)


def remove_record(folder: Path, handle: str) -> None:
    with contextlib.suppress(OSError):
        (folder / f"{handle}{RECORD_SUFFIX}").unlink()


def read_record(path: Path) -> JobRecord | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return JobRecord(**data)
    except (OSError, ValueError, TypeError):
        return None


def reap_leftovers(root: Path) -> list[JobRecord]:
    """Kill the process groups of background commands whose ValarMind process is gone
    (records under `root/*/`), and remove their records; the ones killed, for a notice."""
    reaped: list[JobRecord] = []
    if not root.is_dir():
        return reaped
    for path in root.glob(f"*/*{RECORD_SUFFIX}"):
        record = read_record(path)
        if record is None:
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        if record.kept or alive(record.owner_pid, record.owner_started):
            continue
        if group_alive(record.pgid, record.started):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(record.pgid, signal.SIGKILL)
            reaped.append(record)
        with contextlib.suppress(OSError):
            path.unlink()
    for folder in root.iterdir():
        _remove_if_abandoned(folder)
    return reaped


def _remove_if_abandoned(folder: Path) -> None:
    """The output of a session whose process is gone (`<session>-<pid>`) and that left no
    command running: nobody reads it again."""
    owner = folder.name.rpartition("-")[2]
    if not owner.isdigit() or Path(f"/proc/{owner}").exists():
        return
    if not folder.is_dir() or folder.is_symlink() or any(folder.glob(f"*{RECORD_SUFFIX}")):
        return
    shutil.rmtree(folder, ignore_errors=True)
