"""A cold map of a big tree is a draft at once, and the exact map replaces it once the
background refiner (a detached process) has parsed the tree."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from valarmind_tui.repomap import RepoMap
from valarmind_tui.repomap.cache import TagCache
from valarmind_tui.repomap.refine import build_map, refine, refiner_env, spawn_refiner
from valarmind_tui.repomap.show import format_map


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "core.py").write_text(
        "class Engine:\n    def run_engine(self, job):\n        return job\n\n"
        "def make_engine():\n    return Engine()\n")
    for i in range(4):
        (root / f"user{i}.py").write_text(
            f"from core import make_engine\n\ndef task_{i}():\n    return make_engine()\n")
    (root / "web.js").write_text("export function serveIt() { return 1; }\n")
    return root


def test_draft_first_then_the_exact_map(tmp_path: Path) -> None:
    root, cache = _project(tmp_path / "p"), tmp_path / "cache"
    cold = RepoMap(root, cache, draft_above=0)
    draft = cold.build(draft=True)
    assert draft.draft and cold.stats.level == "draft"
    assert "make_engine" in draft.text and "core.py" in draft.files
    assert "draft" in format_map(draft)

    again = RepoMap(root, cache, draft_above=0)
    assert again.build(draft=True).text == draft.text and again.stats.level == "draft-result"

    exact = RepoMap(root, cache, draft_above=0).build()  # what the refiner runs
    assert not exact.draft and "draft" not in format_map(exact)
    after = RepoMap(root, cache, draft_above=0)
    assert after.build(draft=True) == exact and after.stats.level == "result"


def test_small_tree_is_exact_at_once(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    result, refiner = build_map(root, cache_dir=tmp_path / "cache")
    assert not result.draft and refiner is None


def test_refiner_process_caches_the_exact_map(tmp_path: Path) -> None:
    root, cache = _project(tmp_path / "p"), tmp_path / "cache"
    assert RepoMap(root, cache, draft_above=0).build(1024, ["core.py"], draft=True).draft
    refiner = spawn_refiner(root.resolve(), 1024, ["core.py"], [], cache)
    assert refiner.wait(timeout=120) == 0
    warm = RepoMap(root, cache, draft_above=0)
    result = warm.build(1024, ["core.py"], draft=True)
    assert warm.stats.level == "result" and not result.draft
    fresh = RepoMap(root, tmp_path / "fresh").build(1024, ["core.py"])
    assert result.text == fresh.text


def test_one_refiner_at_a_time(tmp_path: Path) -> None:
    root, cache = _project(tmp_path / "p"), tmp_path / "cache"
    lock_path = TagCache.path_for(root.resolve(), cache).with_suffix(".refine.lock")
    lock_path.parent.mkdir(parents=True)
    with open(lock_path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert refine(root, cache_dir=cache) is False
    assert refine(root, cache_dir=cache) is True
    warm = RepoMap(root, cache)
    warm.build()
    assert warm.stats.level == "result"


def test_refiner_gets_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-children")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    env = refiner_env()
    assert "OPENAI_API_KEY" not in env and env["XDG_CACHE_HOME"] == "/somewhere"
    assert "sk-not-for-children" not in "".join(env.values())
    assert os.environ["OPENAI_API_KEY"] == "sk-not-for-children"


def test_a_draft_drawn_by_a_pool_equals_one_drawn_in_process(tmp_path: Path) -> None:
    """A big cold tree is drafted by a pool of processes (sympy's cold `valarmind map` 3.3-4.4 ->
    2.6-3.5 s): the map is the one a single process draws."""
    from tests.repomap.test_parallel import pooled_in_a_process

    root = _project(tmp_path / "p")
    body = "".join(f"def helper_{i}(x):\n    return make_engine()\n\n\n" for i in range(1_000))
    for n in range(40):  # ~1.6 MB of Python
        (root / f"bulk{n}.py").write_text(f"from core import make_engine\n\n\n{body}")
    (root / "broken.py").write_bytes(b"\xff\xfe" + b"\x00" * 64)  # skipped either way

    alone = RepoMap(root, tmp_path / "cache1", workers=1, draft_above=0)
    one = alone.build(token_budget=2048, draft=True)
    many = pooled_in_a_process(root, tmp_path / "cache2", draft=True)
    assert one.draft and many["draft"] and many["workers"] == 2
    assert many["text"] == one.text and many["files"] == one.files
    assert many["skipped"] == one.skipped and many["tags_count"] == one.tags_count
    assert "core.py" in many["files"]
