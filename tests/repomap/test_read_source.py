"""The cold parse's reader: the file's exact bytes, never a hang on a FIFO, a huge file cut just
past the limit (and so reported huge)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from valarmind_tui.repomap.pipeline import _parse_one, _read_source
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
            "    print(_parse_one((sys.argv[1], name, 0, 0, 'query'))[3])\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=30, check=True)  # a blocked open would time out
    assert done.stdout.split() == ["unreadable", "unreadable"]


def test_a_file_grown_past_the_limit_since_the_scan_is_skipped_as_huge(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * (MAX_FILE_BYTES // 6 + 10))
    assert len(_read_source(str(tmp_path / "big.py"))) == MAX_FILE_BYTES + 1
    rel, _, _, reason, data = _parse_one((str(tmp_path), "big.py", 0, 10, "query"))
    assert (rel, reason, data) == ("big.py", "huge", None)


@pytest.mark.parametrize("size", [0, 1, 4096])
def test_a_small_file_parses(tmp_path: Path, size: int) -> None:
    (tmp_path / "m.py").write_bytes(b"def f():\n    pass\n" + b"# c\n" * size)
    assert _parse_one((str(tmp_path), "m.py", 0, size, "query"))[3] is None
