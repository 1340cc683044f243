"""A cold map parsed by a forked process pool is the same map as one parsed in-process; beside
other threads (as in the app) a big parse is handed to a child process that has no other thread
(never a forkserver: tests/security, it put the project first on its import path)."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import valarmind_tui.repomap.pipeline as builder
from valarmind_tui.repomap import RepoMap, RepoMapResult


def _project(root: Path, n: int = 24) -> Path:
    root.mkdir()
    for i in range(n):
        body = "\n".join(
            f"def step_{i}_{k}(value):\n    return process_item_{(i + k) % n}(value) + {k}\n"
            for k in range(12))
        (root / f"mod{i}.py").write_text(
            f"class Handler{i}(BaseHandler{(i + 3) % n}):\n"
            f"    def handle(self, request):\n        return step_{(i + 1) % n}_0(request)\n\n"
            f"class BaseHandler{i}:\n    pass\n\n"
            f"def process_item_{i}(value):\n    return Handler{(i * 7) % n}().handle(value)\n\n"
            + body)
    return root


def _build(root: Path, cache: Path, workers: int) -> tuple[RepoMapResult, int]:
    repo_map = RepoMap(root, cache_dir=cache, workers=workers)
    try:
        return repo_map.build(token_budget=2048, chat_files=["mod0.py"]), repo_map.stats.workers
    finally:
        repo_map.close()


_POOLED = r"""
import json, sys
from pathlib import Path
import valarmind_tui.repomap.pipeline as pipeline
from valarmind_tui.repomap import RepoMap
pipeline._POOL_MIN_BYTES = 1  # a small project, pooled anyway
root, cache, draft = sys.argv[1], sys.argv[2], sys.argv[3] == "draft"
repo_map = RepoMap(root, cache_dir=Path(cache), workers=2, draft_above=0)
result = repo_map.build(token_budget=2048, chat_files=[] if draft else ["mod0.py"], draft=draft)
print(json.dumps({"text": result.text, "ranked": result.ranked, "files": result.files,
                  "tags_count": result.tags_count, "skipped": result.skipped,
                  "draft": result.draft, "workers": repo_map.stats.workers}))
"""


def pooled_in_a_process(root: Path, cache: Path, *, draft: bool = False) -> dict:
    """The map built by a fresh process that runs no other thread, as `valarmind map` is (a
    test process may run other threads: then the parse stays in-process)."""
    done = subprocess.run([sys.executable, "-c", _POOLED, str(root), str(cache),
                           "draft" if draft else "exact"], capture_output=True, text=True,
                          timeout=120, cwd=cache.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_pooled_cold_map_equals_in_process_map(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    serial, serial_workers = _build(root, tmp_path / "c1", 1)
    assert serial_workers == 1 and "process_item_" in serial.text

    pooled = pooled_in_a_process(root, tmp_path / "c2")
    assert pooled["workers"] == 2
    assert pooled["text"] == serial.text
    assert [tuple(item.values()) for item in pooled["ranked"]] == [
        tuple(item.values()) for item in serial.ranked]
    assert (pooled["tags_count"], pooled["skipped"]) == (serial.tags_count, serial.skipped)


def test_beside_another_thread_the_map_is_parsed_in_a_child_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The TUI builds its map in a worker thread: the parse runs in a child process (which
    forks its own pool when it pays), none of it in this process, and the map is the same."""
    root = _project(tmp_path / "p")
    serial, _ = _build(root, tmp_path / "c1", 1)
    monkeypatch.setattr(builder, "_POOL_MIN_BYTES", 1)
    parsed_here: list[str] = []
    real = builder.extract
    monkeypatch.setattr(builder, "extract", lambda *a: parsed_here.append("x") or real(*a))

    def build_beside() -> tuple[RepoMapResult, RepoMap]:
        repo_map = RepoMap(root, cache_dir=tmp_path / "c2", workers=2)
        try:
            return repo_map.build(token_budget=2048, chat_files=["mod0.py"]), repo_map
        finally:
            repo_map.close()

    with ThreadPoolExecutor(1) as pool:
        beside, repo_map = pool.submit(build_beside).result(120)
    assert repo_map.stats.in_child and repo_map.stats.parsed == 24 and parsed_here == []
    assert beside.text == serial.text and beside.ranked == serial.ranked


def test_when_the_child_process_fails_the_parse_runs_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path / "p")
    serial, _ = _build(root, tmp_path / "c1", 1)
    monkeypatch.setattr(builder, "_POOL_MIN_BYTES", 1)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    with ThreadPoolExecutor(1) as pool:
        beside, _ = pool.submit(_build, root, tmp_path / "c2", 2).result(120)
    assert beside.text == serial.text
