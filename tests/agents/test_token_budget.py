"""The orchestrator's prompt plus tool schemas stay under the 4,000-token budget."""

from __future__ import annotations

from pathlib import Path

from benchmarks.token_bench import TARGET, measure


def test_orchestrator_fits_its_token_budget(tmp_path: Path) -> None:
    m = measure(tmp_path)
    assert m["tools"] == 9
    assert 0 < int(m["total"]) < TARGET
