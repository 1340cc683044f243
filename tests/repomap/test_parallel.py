"""A cold map parsed by a forked process pool is the same map as one parsed in-process; beside
other threads (as in the app) it is parsed in-process (tests/security: a forkserver put the
project first on its import path)."""

from __future__ import annotations

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


@pytest.mark.parametrize("from_thread", [False, True], ids=["fork", "beside-a-thread"])
def test_pooled_cold_map_equals_in_process_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               from_thread: bool) -> None:
    root = _project(tmp_path / "p")
    serial, serial_workers = _build(root, tmp_path / "c1", 1)
    assert serial_workers == 1 and "process_item_" in serial.text

    monkeypatch.setattr(builder, "_POOL_MIN_BYTES", 1)  # a small project, pooled anyway
    if from_thread:
        with ThreadPoolExecutor(1) as pool:
            pooled, pooled_workers = pool.submit(_build, root, tmp_path / "c2", 2).result(60)
    else:
        pooled, pooled_workers = _build(root, tmp_path / "c2", 2)
    assert pooled_workers == (1 if from_thread else 2)
    assert pooled.text == serial.text
    assert pooled.ranked == serial.ranked
    assert (pooled.tags_count, pooled.skipped) == (serial.tags_count, serial.skipped)
