"""/init ranks the map of the code the project ships: its test fixtures are never parsed for
it (a Rust linter's 27,000 Python fixtures made a cold /init take 26-48 s), and the fixtures'
tags a session's map cached stay cached."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from valarmind_tui.context.init.tree import rank_files
from valarmind_tui.repomap import RepoMap
from valarmind_tui.repomap.cache import TagCache, default_cache_dir


def _project(root: Path) -> list[str]:
    (root / "src" / "engine").mkdir(parents=True)
    (root / "src" / "engine" / "core.py").write_text(
        "class Engine:\n    def run(self):\n        return 1\n")
    (root / "src" / "engine" / "cli.py").write_text(
        "from engine.core import Engine\n\n\ndef main():\n    return Engine().run()\n")
    fixtures = root / "tests" / "fixtures"
    fixtures.mkdir(parents=True)
    for i in range(30):
        (fixtures / f"case_{i}.py").write_text(
            "from engine.core import Engine\n\n\n"
            f"def fixture_case_{i}():\n    return Engine().run()\n")
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))


def _cached_paths(root: Path) -> set[str]:
    path = TagCache.path_for(root.resolve(), default_cache_dir())
    with sqlite3.connect(path) as db:
        return {p for (p,) in db.execute("SELECT path FROM files")}


def test_init_parses_the_shipped_code_only(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    files = _project(root)

    ranked = rank_files(root, files)

    assert ranked[0] == "src/engine/core.py"
    assert sorted(ranked) == files  # every file is still in the tree
    assert _cached_paths(root) == {"src/engine/core.py", "src/engine/cli.py"}


def test_init_keeps_the_tags_a_whole_map_cached(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    files = _project(root)
    whole = RepoMap(root)
    whole.build()
    whole.close()
    assert len(_cached_paths(root)) == 32

    rank_files(root, files)

    assert len(_cached_paths(root)) == 32
    again = RepoMap(root)
    again.build(token_budget=2048)
    assert again.stats.parsed == 0
