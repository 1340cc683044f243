"""The judge that cannot be weakened: a goal round's diff read for changes that make its checks
pass without the work (issue #32).

`find_weakening(changes, checks)` returns the evidence: test files read with tree-sitter
(`python_tests.py` for pytest and unittest, `js_tests.py` for Jest, Vitest, Mocha and node:test;
`compare.py` says what a round took away: assertions removed or loosened, tests deleted or
emptied, new skip/xfail/only markers) and the checks' own files (`check_files.py`: the scripts
and runner files a check command runs, its detected source, `|| true`, `exit 0`). `model.py`
holds the records. It reads text only; it never runs anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from valarmind_tui.agents.goal.weakening import js_tests, python_tests
from valarmind_tui.agents.goal.weakening.check_files import CheckSpec, check_file_evidence
from valarmind_tui.agents.goal.weakening.compare import compare_tests
from valarmind_tui.agents.goal.weakening.model import Evidence, FileChange, FileTests

__all__ = ["CheckSpec", "Evidence", "FileChange", "find_weakening"]


def find_weakening(changes: Sequence[FileChange], checks: Sequence[CheckSpec]) -> list[Evidence]:
    """Every change in `changes` that weakens `checks`, in file order."""
    found = check_file_evidence(changes, checks)
    for change in changes:
        found += _test_evidence(change)
    return sorted(dict.fromkeys(found), key=lambda e: (e.path, e.line))


def _test_evidence(change: FileChange) -> list[Evidence]:
    if change.before is None:  # a new file takes nothing away (a new `.only` file aside)
        if change.after is None:
            return []
        empty = FileTests()
        after = _read(change.path, change.after)
        return compare_tests(change.path, empty, after) if after is not None else []
    before = _read(change.path, change.before)
    if before is None:
        return []
    after = _read(change.path, change.after or "") if change.after is not None else FileTests()
    if after is None:  # it no longer parses: the check itself will fail on it
        return []
    return compare_tests(change.path, before, after)


def _read(path: str, text: str) -> FileTests | None:
    if python_tests.is_test_file(path):
        return python_tests.read_tests(text)
    if js_tests.is_test_file(path):
        return js_tests.read_tests(path, text)
    return None
