"""A process killed inside an atomic write (edit_file, write_file) leaves `.NAME.<token>.tmp`
beside the file; the next `valarmind` start removes it, and only it: a live process's
temporary file, a file of the person's with a similar name and a link stay."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.test_headless import valarmind
from valarmind_tui.core import left_writes
from valarmind_tui.core.safe_files import atomic_write

KILLED_MID_WRITE = """
import os, sys
from pathlib import Path
from valarmind_tui.core import left_writes, safe_files
real_replace = os.replace
def stop_before_rename(src, dst):
    print(src, flush=True)
    os.kill(os.getpid(), 9)
safe_files.os.replace = stop_before_rename
safe_files.atomic_write(Path(sys.argv[1]), "new contents\\n")
"""


def test_a_write_killed_before_its_rename_is_cleared_at_the_next_start(tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    target.write_text("old contents\n")
    mine = tmp_path / ".app.py.0123456789abcdef.tmp.keep"
    mine.write_text("the person's own")
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, str(target)],
                            capture_output=True, text=True, env={**os.environ})
    assert killed.returncode == -signal.SIGKILL
    left = Path(killed.stdout.strip())
    assert left.parent == tmp_path and left.exists() and left_writes.TEMP_NAME.match(left.name)
    assert target.read_text() == "old contents\n"

    out = valarmind("sessions", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert not left.exists()
    assert mine.read_text() == "the person's own" and target.read_text() == "old contents\n"
    assert not any((left_writes._folder()).iterdir())


def test_a_live_writers_temporary_file_and_a_link_are_left(tmp_path: Path) -> None:
    live = tmp_path / ".a.txt.00000000000000aa.tmp"
    live.write_text("being written")
    left_writes.record(live, "00000000000000aa")  # this process: alive
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    link = tmp_path / ".b.txt.00000000000000bb.tmp"
    link.symlink_to(outside)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    entry = left_writes._folder() / f"{dead.pid}-00000000000000bb"
    entry.write_bytes(os.fsencode(link))
    time.sleep(0.01)
    assert left_writes.sweep() == []
    assert live.exists() and link.is_symlink() and outside.read_text() == "keep"
    assert not entry.exists()


def test_an_ordinary_write_leaves_no_record(tmp_path: Path) -> None:
    atomic_write(tmp_path / "x.txt", "x")
    assert (tmp_path / "x.txt").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]
    assert not any(left_writes._folder().iterdir())
