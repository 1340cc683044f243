"""/init on a big tree whose repo map is cold ranks its files from the map the session uses: a
draft at once, the exact map parsed by the background refiner (not a full exact parse first:
/init on sympy took 10.3 s that way, 7.0 s with the draft)."""

from __future__ import annotations

import fcntl
import time
from pathlib import Path

import pytest

from valarmind_tui.context.init.tree import rank_files
from valarmind_tui.repomap.builder import DRAFT_ABOVE_BYTES
from valarmind_tui.repomap.cache import TagCache, default_cache_dir


def _big_project(root: Path) -> list[str]:
    package = root / "pkg"
    package.mkdir(parents=True)
    (package / "engine.py").write_text(
        "class Engine:\n    def run(self):\n        return 1\n\n\n"
        "def make_engine():\n    return Engine()\n")
    body = "".join(f"def helper_{i}(x):\n    return make_engine()\n\n\n" for i in range(2_000))
    users = DRAFT_ABOVE_BYTES // len(body) + 2
    for n in range(users):
        (package / f"user{n}.py").write_text("from pkg.engine import make_engine\n\n\n" + body)
    return sorted(str(p.relative_to(root)) for p in package.iterdir())


def _wait_for_refiner(lock_path: Path, timeout: float) -> None:
    """Until the refiner has taken the project's lock and let it go."""
    deadline = time.monotonic() + timeout
    while not lock_path.exists():
        if time.monotonic() > deadline:
            pytest.fail("no background refiner started: /init parsed the whole tree itself")
        time.sleep(0.05)
    with open(lock_path, "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the refiner did not finish")
                time.sleep(0.05)


def test_init_ranks_a_big_cold_tree_from_the_draft_and_the_refiner_parses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "big"
    files = _big_project(root)
    assert sum((root / f).stat().st_size for f in files) > DRAFT_ABOVE_BYTES

    ranked = rank_files(root, files)

    assert ranked[0] == "pkg/engine.py"  # what every other file imports
    assert sorted(ranked) == files
    lock_path = TagCache.path_for(root.resolve(), default_cache_dir()).with_suffix(".refine.lock")
    _wait_for_refiner(lock_path, timeout=60)
