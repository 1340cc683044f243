"""The shadow repository on its own: what it records, what it leaves out, what it never runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.checkpoints.conftest import git_state, tree_state
from valarmind_tui.checkpoints import ShadowRepo
from valarmind_tui.checkpoints.shadow import shadow_dir
from valarmind_tui.user_dirs import user_data_dir


def repo_for(root: Path, **kw: int) -> ShadowRepo:
    return ShadowRepo(root, shadow_dir(root, user_data_dir()), **kw)


def test_gitignore_nested_and_git_dir_are_left_out(git_repo: Path) -> None:
    (git_repo / ".gitignore").write_text("build/\n")
    (git_repo / "pkg").mkdir()
    (git_repo / "pkg" / ".gitignore").write_text("*.log\n")
    (git_repo / "pkg" / "run.log").write_text("noise\n")
    (git_repo / "pkg" / "mod.py").write_text("x = 1\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_bytes(b"\0obj")
    shadow = repo_for(git_repo)
    snap = shadow.snapshot()
    listed = shadow.git("ls-tree", "-r", "--name-only", snap.tree).decode().split()
    assert sorted(listed) == [".gitignore", "README.md", "app.py", "pkg/.gitignore", "pkg/mod.py"]
    assert shadow.git_dir.is_relative_to(user_data_dir() / "checkpoints")


def test_files_over_the_cap_are_noted_and_reported(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "small.txt").write_text("s\n")
    (root / "big.bin").write_bytes(b"a" * 2048)
    shadow = repo_for(root, max_file_bytes=1024)
    first = shadow.snapshot()
    assert first.large == {"big.bin": [2048, (root / "big.bin").stat().st_mtime_ns]}
    (root / "big.bin").write_bytes(b"b" * 4096)
    (root / "small.txt").write_text("changed\n")
    second = shadow.snapshot()
    report, _ = shadow.restore(first, second)
    assert report.written == ["small.txt"] and report.not_restored == ["big.bin"]
    assert (root / "big.bin").read_bytes() == b"b" * 4096
    objects = subprocess.run(["du", "-sk", str(shadow.git_dir / "objects")], text=True,
                             capture_output=True, check=True).stdout.split()[0]
    assert int(objects) < 200  # the big file was never stored


def test_the_projects_filters_and_conversions_never_run(git_repo: Path) -> None:
    """A repository's clean filter and eol attributes would change what is stored; the
    shadow repository stores the bytes on disk and runs nothing."""
    marker = git_repo.parent / "filter-ran"
    subprocess.run(["git", "config", "filter.evil.clean", f"touch {marker}; cat"],
                   cwd=git_repo, check=True)
    (git_repo / ".gitattributes").write_text("* filter=evil\n*.txt text eol=crlf\n")
    (git_repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    before_git = git_state(git_repo)  # the project's own git runs its filter here
    marker.unlink(missing_ok=True)
    shadow = repo_for(git_repo)
    first = shadow.snapshot()
    (git_repo / "crlf.txt").write_bytes(b"changed\n")
    second = shadow.snapshot()
    shadow.restore(first, second)
    assert (git_repo / "crlf.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert not marker.exists()
    assert git_state(git_repo) == before_git


def test_unchanged_tree_is_the_same_tree(git_repo: Path) -> None:
    shadow = repo_for(git_repo)
    assert shadow.snapshot().tree == shadow.snapshot().tree
    state = tree_state(git_repo)
    (git_repo / "new.txt").write_text("n\n")
    changed = shadow.snapshot()
    (git_repo / "new.txt").unlink()
    assert shadow.snapshot().tree != changed.tree
    assert tree_state(git_repo) == state
