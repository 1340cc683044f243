"""read_file and read_many_files on real files."""

from __future__ import annotations

import os
from pathlib import Path

from valarmind_tui.tools.base import ToolResult


async def test_numbers_lines_like_cat_n(call, git_repo: Path) -> None:
    result: ToolResult = await call("read_file", path="app.py")
    assert not result.is_error
    assert result.output == "     1\tdef greet(name):\n     2\t    return 'Hello ' + name"


async def test_range_and_how_to_read_on(call, git_repo: Path) -> None:
    (git_repo / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    result = await call("read_file", path="long.txt", offset=10, limit=3)
    lines = result.output.splitlines()
    assert lines[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "88 more lines" in lines[3] and "offset=13" in lines[3]


async def test_offset_past_end_is_an_error(call) -> None:
    result = await call("read_file", path="app.py", offset=50)
    assert result.is_error and "2 lines" in result.output


async def test_binary_file_is_not_shown(call, git_repo: Path) -> None:
    (git_repo / "data.tar").write_bytes(b"ustar\0\0\0\rIHDR" + bytes(range(256)))
    result = await call("read_file", path="data.tar")
    assert result.is_error
    assert "binary file" in result.output and "application/x-tar" in result.output
    assert "IHDR" not in result.output


async def test_a_broken_image_is_refused_with_the_reason(call, git_repo: Path) -> None:
    (git_repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    result = await call("read_file", path="logo.png")
    assert result.is_error
    assert result.output == "logo.png: not an image that can be read (a PNG, JPEG, GIF or WebP)"


async def test_long_lines_are_cut(call, git_repo: Path) -> None:
    (git_repo / "min.js").write_text("x" * 5000 + "\n")
    result = await call("read_file", path="min.js")
    assert "line cut at 2000" in result.output and len(result.output) < 2100


async def test_missing_file_and_directory(call) -> None:
    missing = await call("read_file", path="nope.py")
    assert missing.is_error and "nope.py does not exist" in missing.output
    directory = await call("read_file", path=".")
    assert directory.is_error and "directory" in directory.output


async def test_escape_by_dotdot_is_refused(call, git_repo: Path) -> None:
    (git_repo.parent / "outside.txt").write_text("private\n")
    result = await call("read_file", path="../outside.txt")
    assert result.is_error
    assert "outside the project root" in result.output and "private" not in result.output


async def test_escape_by_symlink_is_refused(call, git_repo: Path) -> None:
    secret_dir = git_repo.parent / "elsewhere"
    secret_dir.mkdir()
    (secret_dir / "data.txt").write_text("private\n")
    os.symlink(secret_dir, git_repo / "link")
    os.symlink(secret_dir / "data.txt", git_repo / "file_link.txt")
    for path in ("link/data.txt", "file_link.txt"):
        result = await call("read_file", path=path)
        assert result.is_error and "outside the project root" in result.output, path
        assert "private" not in result.output


async def test_symlink_inside_project_is_fine(call, git_repo: Path) -> None:
    os.symlink(git_repo / "app.py", git_repo / "alias.py")
    result = await call("read_file", path="alias.py")
    assert "def greet" in result.output


async def test_read_many_files_with_globs_skips_secrets(call, git_repo: Path) -> None:
    (git_repo / "pkg").mkdir()
    (git_repo / "pkg" / "a.py").write_text("A = 1\n")
    (git_repo / "pkg" / "b.py").write_text("B = 2\n")
    (git_repo / "pkg" / "secrets.py").write_text("KEY = 'sk-live'\n")
    result = await call("read_many_files", paths=["README.md", "pkg/*.py", "missing.txt"])
    out = result.output
    assert "==> README.md <==\n     1\t# demo" in out
    assert "==> pkg/a.py <==\n     1\tA = 1" in out and "==> pkg/b.py <==" in out
    assert "sk-live" not in out and "pkg/secrets.py: skipped" in out
    assert "missing.txt: not found" in out
    named = await call("read_many_files", paths=["pkg/secrets.py"])
    assert "sk-live" in named.output  # named explicitly: the gate asked the person first


async def test_read_many_files_refuses_escape(call) -> None:
    result = await call("read_many_files", paths=["../../etc/passwd"])
    assert result.is_error and "outside the project root" in result.output
