"""Golden maps per language: real small projects, the rendered map compared to a reviewed file.

Regenerate after a deliberate change with REPOMAP_UPDATE_GOLDEN=1, then review the diff.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from valarmind_tui.repomap import RepoMap

GOLDEN = Path(__file__).parent / "golden"
LANGS = ["python", "javascript", "typescript", "go", "rust"]


@pytest.mark.parametrize("lang", LANGS)
def test_map_matches_golden(lang: str, tmp_path: Path) -> None:
    project = tmp_path / lang
    shutil.copytree(GOLDEN / lang, project, ignore=shutil.ignore_patterns("expected_map.txt"))
    repo_map = RepoMap(project, cache_dir=tmp_path / "cache")
    result = repo_map.build(token_budget=2048)
    repo_map.close()
    expected_file = GOLDEN / lang / "expected_map.txt"
    if os.environ.get("REPOMAP_UPDATE_GOLDEN"):
        expected_file.write_text(result.text, encoding="utf-8")
    assert result.text == expected_file.read_text(encoding="utf-8")
    assert result.skipped == {}
