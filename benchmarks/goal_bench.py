"""What a goal's round costs besides the model and the checks (targets: the weakening detector
<= 250 ms of CPU on a round that edits ten large test files, the round's snapshot and diff
<= 0.5 s on a project the size of ValarMind's source). A round is minutes of model time and
checks: these only must not add seconds. The detector is timed in CPU seconds (the machine is
shared: wall time moves with its load).

The detector reads ValarMind's ten largest test files, each with one assertion removed (the
parse of both sides is the cost); the first call includes loading the tree-sitter pack. The
snapshot and diff run on a git copy of `valarmind_tui/` and `tests/` in a fresh shadow
repository: the first snapshot hashes every file, a round's snapshot only what changed.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from valarmind_tui.agents.goal.tree import TreeWatch  # noqa: E402
from valarmind_tui.agents.goal.weakening import CheckSpec, FileChange, find_weakening  # noqa: E402
from valarmind_tui.checkpoints.shadow import ShadowRepo  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _round_changes() -> list[FileChange]:
    files = sorted((REPO / "tests").rglob("test_*.py"), key=lambda p: -p.stat().st_size)[:10]
    changes = []
    for path in files:
        text = path.read_text()
        lines = text.splitlines(keepends=True)
        at = next((i for i, line in enumerate(lines) if line.strip().startswith("assert ")), 0)
        changes.append(FileChange(str(path.relative_to(REPO)), text,
                                  "".join(lines[:at] + lines[at + 1:])))
    return changes


def detector() -> tuple[float, float, int]:
    changes = _round_changes()
    checks = [CheckSpec("pytest -q")]
    start = time.process_time()
    found = find_weakening(changes, checks)
    first = time.process_time() - start
    warm = []
    for _ in range(5):
        start = time.process_time()
        find_weakening(changes, checks)
        warm.append(time.process_time() - start)
    return first, statistics.median(warm), len(found)


def snapshots() -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="valarmind-goal-bench-") as tmp:
        root = Path(tmp) / "project"
        shutil.copytree(REPO / "valarmind_tui", root / "valarmind_tui")
        shutil.copytree(REPO / "tests", root / "tests")
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        watch = TreeWatch(ShadowRepo(root, Path(tmp) / "shadow"))
        start = time.perf_counter()
        before = asyncio.run(watch.snapshot())
        first = time.perf_counter() - start
        target = root / "valarmind_tui" / "agents" / "goal" / "loop.py"
        target.write_text(target.read_text() + "\n# a round's change\n")
        start = time.perf_counter()
        after = asyncio.run(watch.snapshot())
        changes = asyncio.run(watch.changes(before, after))
        one_round = time.perf_counter() - start
        assert len(changes) == 1
    return first, one_round


def run() -> list[dict[str, object]]:
    first, warm, found = detector()
    cold_tree, round_tree = snapshots()
    return [
        {"name": "goal: weakening detector, 10 large test files, first call", "unit": "ms CPU",
         "value": round(first * 1000, 1), "target": f"(loads the grammars; {found} found)"},
        {"name": "goal: weakening detector, 10 large test files", "unit": "ms CPU",
         "value": round(warm * 1000, 1), "target": "<= 250"},
        {"name": "goal: first snapshot of the project", "unit": "s",
         "value": round(cold_tree, 2), "target": "(once per goal)"},
        {"name": "goal: a round's snapshot and diff", "unit": "s",
         "value": round(round_tree, 3), "target": "<= 0.5"},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
