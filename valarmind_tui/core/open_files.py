"""Which files some live process holds open: how a lock or temp file left by a killed process
is told from one in use. Linux answers exactly through /proc/<pid>/fd; elsewhere a file counts
as held until it is older than `unknown_after_s` (nothing better is known there)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

PROC = Path("/proc")


def held_open(paths: Iterable[Path], unknown_after_s: float = 600.0) -> set[Path]:
    """The ones of `paths` that a live process has open (among the processes this user may
    see: those are the ones that write our files)."""
    wanted = {os.path.realpath(p): Path(p) for p in paths}
    if not wanted:
        return set()
    if not (PROC / "self" / "fd").is_dir():
        now = time.time()
        return {p for p in wanted.values() if _age(p, now) < unknown_after_s}
    held: set[Path] = set()
    for pid in _pids():
        try:
            fds = os.scandir(PROC / pid / "fd")
        except OSError:
            continue  # gone, or another user's
        with fds:
            for fd in fds:
                try:
                    target = os.readlink(fd.path)
                except OSError:
                    continue
                if target in wanted:
                    held.add(wanted[target])
    return held


def _pids() -> list[str]:
    try:
        return [name for name in os.listdir(PROC) if name.isdigit()]
    except OSError:
        return []


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return float("inf")
