"""Helpers for the worktree tests: a real repository with work in progress, and every byte of a
tree (files, index, refs, stash list) to compare before and after."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})
    assert done.returncode == 0, done.stderr
    return done.stdout


def every_byte(root: Path) -> dict[str, bytes]:
    """The tree's files (the git dir's index, HEAD, refs and stash log included) by path."""
    found: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not path.is_symlink() and (
                not rel.startswith(".git/") or rel in (".git/index", ".git/HEAD")
                or rel.startswith(".git/refs/heads") or rel.startswith(".git/logs/refs/stash")):
            found[rel] = path.read_bytes()
    if (root / ".git").is_file():  # a linked worktree: its own index in the admin dir
        admin = Path(git(root, "rev-parse", "--absolute-git-dir").strip())
        found["<index>"] = (admin / "index").read_bytes() if (admin / "index").exists() else b""
    return found


@pytest.fixture
def project(git_repo: Path) -> Path:
    """git_repo with work in progress: one staged, one unstaged, one untracked, one ignored."""
    (git_repo / ".gitignore").write_text("build/\n")
    (git_repo / "lib.py").write_text("".join(f"line {i}\n" for i in range(1, 31)))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "lib")
    (git_repo / "README.md").write_text("# demo\nstaged line\n")
    git(git_repo, "add", "README.md")
    (git_repo / "app.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
    (git_repo / "notes.txt").write_text("untracked\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.bin").write_bytes(b"\0ignored")
    return git_repo
