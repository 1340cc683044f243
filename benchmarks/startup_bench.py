"""Start-up: wall time of `valarmind --version` in a fresh process (target < 150 ms)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time

RUNS = 15


def _command() -> list[str]:
    exe = shutil.which("valarmind", path=str(__import__("pathlib").Path(sys.executable).parent))
    return [exe, "--version"] if exe else [sys.executable, "-m", "valarmind_tui", "--version"]


def run() -> list[dict]:
    cmd = _command()
    subprocess.run(cmd, capture_output=True, check=True)  # warm the OS file cache
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return [{"name": "valarmind --version (median)", "value": statistics.median(times),
             "unit": "ms", "target": "< 150"}]


if __name__ == "__main__":
    for row in run():
        print(row)
