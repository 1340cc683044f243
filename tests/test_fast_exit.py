"""Leaving without the interpreter's teardown keeps what a normal exit does first: the exit
code, the exit handlers, buffered output, and any thread still working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import atexit, sys, threading, time
from pathlib import Path
from valarmind_tui.core.fast_exit import exit_without_teardown

out = Path(sys.argv[1])

class FreedAtTeardown:
    def __del__(self):
        out.joinpath("teardown").write_text("ran")

kept = FreedAtTeardown()  # a module global: freed only by the interpreter's teardown
atexit.register(lambda: out.joinpath("handler").write_text("ran"))
if sys.argv[2] == "thread":
    def work():
        time.sleep(0.3)
        out.joinpath("thread").write_text("finished")
    threading.Thread(target=work).start()
sys.stdout.write("no newline, still buffered")
exit_without_teardown(3)
"""


def _run(tmp_path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), mode],
                          capture_output=True, text=True, timeout=60)


def test_exit_keeps_code_handlers_and_output_and_skips_the_teardown(tmp_path: Path) -> None:
    done = _run(tmp_path, "alone")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "no newline, still buffered"
    assert (tmp_path / "handler").read_text() == "ran"
    assert not (tmp_path / "teardown").exists()


def test_a_thread_still_working_is_waited_for(tmp_path: Path) -> None:
    done = _run(tmp_path, "thread")
    assert done.returncode == 3, done.stderr
    assert (tmp_path / "thread").read_text() == "finished"
    assert (tmp_path / "handler").read_text() == "ran"
