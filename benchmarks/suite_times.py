"""Where the test suite's time goes, per module, and what a change moved.

Record a run with `nice -n 19 .ci/with-env pytest --junitxml=before.xml` (the suite's own `-n 2`),
change the tests, record `after.xml`, then:

    .ci/with-env python benchmarks/suite_times.py before.xml after.xml [--top 25]

A module's time is the sum of its tests' setup, call and teardown (pytest's junit `time`);
with two workers the wall time is about half the total. One file alone lists its slowest
modules. Not in run.py: a run of the suite takes ten minutes.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path


def module_times(report: Path) -> tuple[Counter[str], Counter[str], int]:
    """Seconds and test count per module, and how many tests failed or errored."""
    seconds: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    failed = 0
    for case in ET.parse(report).iter("testcase"):
        module = case.get("classname", "?")
        seconds[module] += float(case.get("time", 0))
        tests[module] += 1
        failed += any(case.find(tag) is not None for tag in ("failure", "error"))
    return seconds, tests, failed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path, help="one or two junit XML files")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    if len(args.reports) > 2:
        parser.error("one report, or two to compare")
    runs = [module_times(path) for path in args.reports]
    for path, (seconds, tests, failed) in zip(args.reports, runs, strict=True):
        print(f"{path}: {sum(tests.values())} tests, {failed} failed, "
              f"{sum(seconds.values()):.0f} s of test time")
    if len(runs) == 1:
        seconds, tests, _ = runs[0]
        for module, spent in seconds.most_common(args.top):
            print(f"{spent:8.1f} s {tests[module]:5d} tests  {module}")
        return 0
    (before, _, _), (after, tests, _) = runs
    moved = sorted(set(before) | set(after), key=lambda m: after[m] - before[m])
    print(f"{'before':>8} {'after':>8} {'change':>8}  module")
    for module in moved[:args.top]:
        print(f"{before[module]:8.1f} {after[module]:8.1f} {after[module] - before[module]:+8.1f}"
              f"  {module} ({tests[module]} tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
