"""The attack suite: every test here is one attack attempt made the way a hostile repository,
model output or MCP peer would make it, with a sentinel key in the environment.

A passing test means the attack was contained; a failing one means it got through. The terminal
summary prints one line per attack class (each test file is a class) with the counts.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

SENTINEL = "sk-valarmind-sentinel-4f1c9e2b7a"
"""A fake API key: no output, request, file or child environment may ever contain it."""

_OUTCOMES: Counter[tuple[str, str]] = Counter()


@pytest.fixture(autouse=True)
def sentinel_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The sentinel in every variable a provider key could come from."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "VALARMIND_TEST_KEY"):
        monkeypatch.setenv(name, SENTINEL)
    return SENTINEL


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        attack_class = Path(report.fspath).stem.removeprefix("test_")
        _OUTCOMES[(attack_class, "contained" if report.passed else "leaked")] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _OUTCOMES:
        return
    terminalreporter.section("security: attack attempts")
    classes = sorted({c for c, _ in _OUTCOMES})
    for attack_class in classes:
        contained = _OUTCOMES[(attack_class, "contained")]
        leaked = _OUTCOMES[(attack_class, "leaked")]
        terminalreporter.write_line(
            f"{attack_class:<28} {contained:>3} contained  {leaked:>3} got through")
    total_c = sum(n for (_, o), n in _OUTCOMES.items() if o == "contained")
    total_l = sum(n for (_, o), n in _OUTCOMES.items() if o == "leaked")
    terminalreporter.write_line(f"{'all':<28} {total_c:>3} contained  {total_l:>3} got through")
