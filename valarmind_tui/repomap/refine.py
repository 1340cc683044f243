"""A map as soon as possible: a draft when the exact parse is big, refined in the background.

`build_map` returns the exact map when the cache holds it or the parse is small; otherwise the
draft (`RepoMapResult.draft`), and starts `python -m valarmind_tui.repomap.refine`, a detached
process that parses exactly (filling the per-file cache, the graph and this request's result),
so the next build of the same request is a warm, exact map. A process rather than a thread: the
parse then never competes with a face for the GIL, and it finishes after `valarmind map` exits.
One refiner per project at a time (a lock beside the cache).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from valarmind_tui.repomap.builder import RepoMap, RepoMapResult
from valarmind_tui.repomap.cache import TagCache, default_cache_dir

_ENV_KEPT = ("PATH", "HOME", "XDG_CACHE_HOME", "PYTHONPATH", "LANG", "LC_ALL", "TMPDIR")
"""All the refiner needs: a parse reads no secret, so none is handed down."""


def build_map(root: Path | str, token_budget: int = 1024, chat_files: Iterable[str] = (),
              mentioned_idents: Iterable[str] = (), cache_dir: Path | None = None,
              only: Callable[[str], bool] | None = None
              ) -> tuple[RepoMapResult, subprocess.Popen[bytes] | None]:
    """The map now, and the refiner started when it is a draft (None otherwise). The map of
    `only` some files (`RepoMap`) is refined as the whole map: what the refiner leaves behind
    is the per-file tags, and the whole map is the one a session asks for next."""
    chat, mentioned = list(chat_files), list(mentioned_idents)
    repo_map = RepoMap(root, cache_dir, only=only)
    try:
        result = repo_map.build(token_budget, chat, mentioned, draft=True)
    finally:
        repo_map.close()
    if not result.draft:
        return result, None
    return result, spawn_refiner(repo_map.root, token_budget, chat, mentioned, cache_dir)


def spawn_refiner(root: Path, token_budget: int, chat: list[str], mentioned: list[str],
                  cache_dir: Path | None = None) -> subprocess.Popen[bytes]:
    """Start the detached refiner of `root` for this request. `-P` and cwd `/`: no file of
    the project (a `json.py`, say) can stand in for a module the refiner imports."""
    args = [str(root), str(token_budget), json.dumps(chat), json.dumps(mentioned),
            str(cache_dir or default_cache_dir())]
    refiner = subprocess.Popen(
        [sys.executable, "-P", "-m", "valarmind_tui.repomap.refine", "--", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True, env=refiner_env(), cwd="/")
    _started.append(refiner)
    return refiner


_started: list[subprocess.Popen[bytes]] = []
"""Refiners this process started: a session ends those still running (`valarmind map` leaves
its own to finish, which is what warms the cache for the next run)."""


def stop_refiners() -> int:
    """End the refiners this process started that still run; how many were ended."""
    ended = 0
    while _started:
        refiner = _started.pop()
        if refiner.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # its own group: its pool goes too
                os.killpg(refiner.pid, signal.SIGKILL)
            refiner.wait()
            ended += 1
    return ended


def refiner_env() -> dict[str, str]:
    """The refiner's environment: what finds Python, the package and the cache."""
    return {k: v for k, v in os.environ.items() if k in _ENV_KEPT}


def refine(root: Path | str, token_budget: int = 1024, chat: Iterable[str] = (),
           mentioned: Iterable[str] = (), cache_dir: Path | None = None) -> bool:
    """Build the exact map of this request unless another refiner holds the project's lock;
    whether it ran."""
    import fcntl

    repo_map = RepoMap(root, cache_dir)
    lock_path = TagCache.path_for(repo_map.root, cache_dir).with_suffix(".refine.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        try:
            repo_map.build(token_budget, chat, mentioned)
        finally:
            repo_map.close()
    return True


def main(argv: list[str]) -> int:
    root, tokens, chat, mentioned, cache_dir = argv[argv.index("--") + 1:]
    refine(root, int(tokens), json.loads(chat), json.loads(mentioned), Path(cache_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
