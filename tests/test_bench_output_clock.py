"""The benchmarks' echo clock (benchmarks/e2e_terminal.py's OutputClock) reads how long a tool
takes to write a key, not how often the screen is read: a pane that echoes 40 ms late reads
at least 40 ms, the kernel's own echo reads far less than the screen poll's ~2.5 ms floor, and a
pane that never writes the key is an error, not a figure."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from benchmarks.e2e_terminal import Terminal

pytestmark = pytest.mark.slow

LATE_ECHO = """
import os, time, tty
tty.setraw(0)
while True:
    typed = os.read(0, 64)
    time.sleep(0.04)
    os.write(1, typed)
"""


def _timed(command: list[str], tmp_path: Path, key: str = "z", timeout: float = 10.0,
           keys: int = 3) -> list[float]:
    assert shutil.which("tmux"), "tmux is needed for this end-to-end test"
    term = Terminal(command, tmp_path, dict(os.environ))
    try:
        time.sleep(0.5)
        clock = term.output_clock()
        try:
            return [clock.type_until_shown(key, timeout) for _ in range(keys)]
        finally:
            clock.close()
    finally:
        term.close()


def test_a_late_echo_reads_late(tmp_path: Path) -> None:
    script = tmp_path / "late.py"
    script.write_text(LATE_ECHO)
    times = _timed([sys.executable, str(script)], tmp_path)
    assert all(0.04 <= seconds < 1.0 for seconds in times), times


def test_the_kernels_echo_reads_under_the_screen_polls_floor(tmp_path: Path) -> None:
    times = _timed(["cat"], tmp_path, keys=5)
    assert sorted(times)[2] < 0.0025, times


def test_a_key_never_written_is_an_error(tmp_path: Path) -> None:
    silent = ["sh", "-c", "stty -echo; sleep 30"]
    with pytest.raises(TimeoutError, match="never wrote"):
        _timed(silent, tmp_path, timeout=0.3)
