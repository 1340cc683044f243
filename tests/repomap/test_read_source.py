"""The cold parse's reader: the file's exact bytes, never a hang on a FIFO, a huge file cut just
past the limit (and so reported huge)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from valarmind_tui.repomap.files import read_checked as _read_source
from valarmind_tui.repomap.pipeline import _parse_one
from valarmind_tui.repomap.tags import MAX_FILE_BYTES


def test_reads_the_exact_bytes_of_a_file_and_of_a_symlink_to_one(tmp_path: Path) -> None:
    data = "def café():\n    return 'ünïcode'\n".encode() * 5000
    (tmp_path / "a.py").write_bytes(data)
    (tmp_path / "link.py").symlink_to(tmp_path / "a.py")
    assert _read_source(str(tmp_path / "a.py")) == data
    assert _read_source(str(tmp_path / "link.py")) == data
    (tmp_path / "empty.py").write_bytes(b"")
    assert _read_source(str(tmp_path / "empty.py")) == b""


def test_a_fifo_or_a_folder_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "folder.py").mkdir()
    code = ("import sys\nfrom valarmind_tui.repomap.pipeline import _parse_one\n"
            "for name in ('pipe.py', 'folder.py'):\n"
            "    print(_parse_one((sys.argv[1], name, (0, 0, 0, 0), 'query', False))[2])\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=30, check=True)  # a blocked open would time out
    assert done.stdout.split() == ["unreadable", "unreadable"]


def test_a_file_grown_since_the_scan_is_not_parsed(tmp_path: Path) -> None:
    """Read up to one byte past the limit; a file that is no longer what the scan stamped is
    reported changed (not parsed, not cached: the next build parses it)."""
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * (MAX_FILE_BYTES // 6 + 10))
    assert len(_read_source(str(tmp_path / "big.py"))) == MAX_FILE_BYTES + 1
    st = (tmp_path / "big.py").stat()
    stamp = (st.st_mtime_ns, 10, st.st_ctime_ns, st.st_ino)  # the scan saw 10 bytes
    rel, _, reason, data, _ = _parse_one((str(tmp_path), "big.py", stamp, "query", False))
    assert (rel, reason, data) == ("big.py", "changed", None)
    stamp = (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)
    rel, _, reason, data, _ = _parse_one((str(tmp_path), "big.py", stamp, "query", False))
    assert (rel, reason, data) == ("big.py", "huge", None)


@pytest.mark.parametrize("size", [0, 1, 4096])
def test_a_small_file_parses(tmp_path: Path, size: int) -> None:
    (tmp_path / "m.py").write_bytes(b"def f():\n    pass\n" + b"# c\n" * size)
    st = (tmp_path / "m.py").stat()
    stamp = (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)
    assert _parse_one((str(tmp_path), "m.py", stamp, "query", False))[2] is None
