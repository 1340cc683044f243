"""Git's lock files in the shadow repository left by a killed snapshot.

Git takes `index.lock` (and a ref's `.lock`) for the few milliseconds of a write; a process
group killed in between leaves it, and every later snapshot, undo and session then failed
("Checkpoints are off") for good. Our own git commands on the shadow index run one at a time
under the shadow repository's flock, so a lock found while holding it that no live process has
open is left over, and removed.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from valarmind_tui.core.open_files import held_open


def stale_locks(git_dir: Path) -> list[Path]:
    """Lock files in `git_dir` that no live process holds."""
    found = [p for p in (git_dir / "index.lock", git_dir / "packed-refs.lock") if p.is_file()]
    refs = git_dir / "refs"
    if refs.is_dir():
        found += [p for p in refs.rglob("*.lock") if p.is_file() and not p.is_symlink()]
    if not found:
        return []
    held = held_open(found)
    return [p for p in found if p not in held]


def remove_stale_locks(git_dir: Path) -> list[Path]:
    """Remove the stale locks; returns what was removed (call it holding the shadow flock)."""
    removed = []
    for lock in stale_locks(git_dir):
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
            removed.append(lock)
    return removed
