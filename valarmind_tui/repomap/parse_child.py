"""The cold parse of a process that runs other threads, done in a child process.

A process pool is forked only by a process with no other thread (`pipeline._pool_plan`: a fork
beside threads can deadlock, and the other start methods put the project first on the import
path). The TUI builds its map in a worker thread, so a big parse there ran in-process, one core
and the TUI's GIL. Instead the parent hands the files to parse (path and stamp) to
`python -P -m valarmind_tui.repomap.parse_child` (cwd `/`, no secrets in its environment: the
refiner's), which has no other thread, forks its pool, and stores the tags in the per-file
cache; the parent then reads them back like any cached file. What the child did not store (a
file changed meanwhile, a child that failed) is parsed in-process as before.
"""

from __future__ import annotations

import marshal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

CHILD_TIMEOUT_S = 600.0


def parse_in_child(root: Path, cache_path: Path, references: str,
                   todo: list[tuple[str, int, int, int, int]], racy: dict[str, str],
                   meanwhile: Callable[[], None] | None = None) -> bool:
    """Parse `todo` in a child process into the cache at `cache_path`, running `meanwhile`
    while it parses; whether the child finished."""
    from valarmind_tui.repomap.gc_pause import gc_resumed
    from valarmind_tui.repomap.refine import refiner_env

    request = marshal.dumps((str(root), references, str(cache_path.parent), todo, racy))
    try:
        child = subprocess.Popen(
            [sys.executable, "-P", "-m", "valarmind_tui.repomap.parse_child"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=refiner_env(), cwd="/", close_fds=True)
    except OSError:
        return False
    try:
        if meanwhile is not None:
            meanwhile()
        with gc_resumed():
            child.communicate(request, timeout=CHILD_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        child.kill()
        child.wait()
        return False
    return child.returncode == 0


def main() -> int:
    from valarmind_tui.repomap.cache import TagCache
    from valarmind_tui.repomap.pipeline import store_tags

    root, references, cache_dir, todo, racy = marshal.loads(sys.stdin.buffer.read())
    cache = TagCache(Path(root), Path(cache_dir))
    try:
        store_tags(Path(root), cache, [tuple(e) for e in todo], references, racy)
    finally:
        cache.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
