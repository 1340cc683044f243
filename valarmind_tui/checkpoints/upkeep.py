"""Upkeep of a project's shadow repository: warming its index, pruning old turns.

The first checkpoint in a project hashes every file into the shadow index (seconds on 10,000
files). `warm_up` does that at session start, in a background thread, so the first turn's
checkpoint finds a warm index and hashes only what changed, unless what it would copy is more
than WARM_ROOM_SHARE of the free space: a read-only question must not fill a small disk (a
2 MB HOME was full after the warm-up), so the first checkpoint, if any, copies it. Then, at
most once a day, `prune` drops the refs of turns beyond the newest `keep_turns` of the project
or older than `max_age_days`, and `git gc --prune=now` deletes what only they reached.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from valarmind_tui.checkpoints.shadow import NoRoom, ShadowError, ShadowRepo
from valarmind_tui.settings.sections import CheckpointSettings

REF_ROOT = "refs/valarmind"
WARM_ROOM_SHARE = 0.25
PRUNE_EVERY_S = 24 * 3600.0
_STAMP = "valarmind-pruned"


@dataclass(frozen=True)
class PruneReport:
    kept: int
    """Turns kept (every session of the project)."""
    pruned: int
    """Turns whose checkpoints were deleted."""


def prune(repo: ShadowRepo, limits: CheckpointSettings, now: float | None = None) -> PruneReport:
    """Delete the checkpoints of turns beyond `limits` (blocking; one process at a time)."""
    now = time.time() if now is None else now
    with repo.locked():
        turns: dict[str, list[str]] = {}
        when: dict[str, float] = {}
        for ref, _commit, _tree, message in repo.refs(f"{REF_ROOT}/"):
            turn, _, name = ref.rpartition("/")
            turns.setdefault(turn, []).append(ref)
            if name == "1" or turn not in when:
                when[turn] = _at(message, when.get(turn, 0.0))
        newest = sorted(turns, key=lambda t: when[t], reverse=True)
        cutoff = now - limits.max_age_days * 86400
        doomed = [t for n, t in enumerate(newest) if n >= limits.keep_turns or when[t] < cutoff]
        if doomed:
            lines = "".join(f"delete {ref}\n" for t in doomed for ref in turns[t])
            repo.git("update-ref", "--stdin", input=lines.encode())
            repo.git("gc", "--prune=now", "--quiet")
        (repo.git_dir / _STAMP).touch()
        return PruneReport(kept=len(turns) - len(doomed), pruned=len(doomed))


def warm_up(repo: ShadowRepo, limits: CheckpointSettings,
            on_error: Callable[[str], None] | None = None) -> threading.Thread:
    """Hash the work tree into the shadow index in a daemon thread (a checkpoint taken
    meanwhile waits for it on the repository's lock), then prune when a day has passed."""

    def work() -> None:
        try:
            repo.snapshot(room_share=WARM_ROOM_SHARE)
            if _due(repo):
                prune(repo, limits)
        except NoRoom:
            return  # left to the first checkpoint, which says so if the disk is full
        except (ShadowError, OSError) as exc:  # the first checkpoint meets it again and says so
            if on_error is not None:
                on_error(str(exc))

    thread = threading.Thread(target=work, name="checkpoint-warm-up", daemon=True)
    thread.start()
    return thread


def _due(repo: ShadowRepo) -> bool:
    try:
        return time.time() - (repo.git_dir / _STAMP).stat().st_mtime > PRUNE_EVERY_S
    except FileNotFoundError:
        return True


def _at(message: str, default: float) -> float:
    try:
        meta = json.loads(message)
    except ValueError:
        return default
    at = meta.get("at") if isinstance(meta, dict) else None
    return float(at) if isinstance(at, (int, float)) else default
