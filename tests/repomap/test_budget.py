"""A map never exceeds its budget as a model's tokenizer counts it (tiktoken cl100k_base and
o200k_base, read offline from the files LiteLLM ships), and the result cache answers only for
the same file stamps and budget."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import tiktoken

import valarmind_tui
from valarmind_tui.core import tokenizer
from valarmind_tui.repomap import RepoMap

PACKAGE = Path(valarmind_tui.__file__).parent


@pytest.fixture(scope="module")
def encodings() -> list[tiktoken.Encoding]:
    folder = tokenizer.bundled_cache_dir()
    assert folder is not None, "LiteLLM ships the tiktoken files: it is a dependency"
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = folder
    try:
        return [tiktoken.get_encoding("cl100k_base"), tiktoken.get_encoding("o200k_base")]
    finally:
        if old is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


def test_map_never_exceeds_its_budget_in_either_encoding(
        tmp_path: Path, encodings: list[tiktoken.Encoding]) -> None:
    project = tmp_path / "project"
    shutil.copytree(PACKAGE, project, ignore=shutil.ignore_patterns("__pycache__"))
    repo_map = RepoMap(project, cache_dir=tmp_path / "cache")
    for budget in (100, 256, 512, 1024, 2048):
        result = repo_map.build(token_budget=budget)
        counts = [len(e.encode(result.text, disallowed_special=())) for e in encodings]
        assert max(counts) <= budget, (budget, counts)
        assert result.tokens == max(counts)
        assert max(counts) > budget * 0.6, (budget, counts)  # and the budget is used
    repo_map.close()


def test_counts_come_from_tiktoken_offline(encodings: list[tiktoken.Encoding]) -> None:
    text = "def build(self, token_budget: int = 1024) -> RepoMapResult:\n    ⋮ naïve"
    assert tokenizer.count_tokens(text) == len(encodings[0].encode(text))
    assert tokenizer.count_tokens(text, "o200k_base") == len(encodings[1].encode(text))
    assert tokenizer.budget_tokens(text) == max(len(e.encode(text)) for e in encodings)


def test_missing_encoding_file_falls_back_to_the_estimate_without_downloading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUSTOM_TIKTOKEN_CACHE_DIR", str(tmp_path))  # an empty folder
    tokenizer.encoding.cache_clear()
    try:
        assert tokenizer.encoding("cl100k_base") is None
        assert tokenizer.count_tokens("x" * 40) == 10
    finally:
        tokenizer.encoding.cache_clear()


def test_result_cache_follows_file_stamps_and_budget(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    for i in range(4):
        (root / f"mod{i}.py").write_text(f"def helper_function_{i}(x):\n    return x\n\n"
                                         f"def user_{i}():\n    return helper_function_"
                                         f"{(i + 1) % 4}(1)\n")
    cache = tmp_path / "cache"

    def build(budget: int = 1024) -> tuple[str, str]:
        repo_map = RepoMap(root, cache_dir=cache)
        text = repo_map.build(token_budget=budget).text
        repo_map.close()
        return text, repo_map.stats.level

    first, level = build()
    assert level == "cold" and "helper_function_1" in first
    assert build() == (first, "result")

    smaller, level = build(40)
    assert level == "graph" and smaller != first
    assert build(40) == (smaller, "result")

    # The same size with a new mtime is a new stamp: the file is parsed again.
    target = root / "mod2.py"
    stamp = target.stat()
    target.write_text(target.read_text().replace("helper_function_2", "helper_renamed__2"))
    os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))
    assert target.stat().st_size == stamp.st_size
    renamed, level = build()
    assert level == "tags" and "helper_renamed__2" in renamed

    # So is a new size with the mtime put back.
    moved = target.stat()
    target.write_text(target.read_text() + "\ndef added_later():\n    pass\n")
    os.utime(target, ns=(moved.st_atime_ns, moved.st_mtime_ns))
    grown, level = build()
    assert level == "tags" and "added_later" in grown
