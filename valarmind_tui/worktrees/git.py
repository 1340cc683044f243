"""git on the person's repository or one of its worktrees, hardened (safety/git_hardening.py:
no hooks, no repository-chosen program, no transport), and the snapshot of a working tree
taken through a temporary index, so the person's own index is never written."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.safety.git_hardening import harden

GIT_TIMEOUT_S = 120.0
IDENTITY = {"GIT_AUTHOR_NAME": "ValarMind", "GIT_AUTHOR_EMAIL": "valarmind@localhost",
            "GIT_COMMITTER_NAME": "ValarMind", "GIT_COMMITTER_EMAIL": "valarmind@localhost"}
"""The author of ValarMind's own bookkeeping commits (a worktree's base, a tree to merge):
they live under refs/valarmind/, never on a branch of the person's."""
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class WorktreeError(ValarMindError):
    """A worktree operation that cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class TreeState:
    """What a working tree holds, as git trees: `staged` the index, `full` every file git would
    add (tracked and untracked-not-ignored)."""

    staged: str
    full: str


@dataclass(frozen=True)
class RepoGit:
    """How to run git in one working tree (the person's or a worktree)."""

    root: Path
    git_dir: Path
    env: dict[str, str]

    @classmethod
    def of(cls, root: Path) -> RepoGit:
        hardened = harden(root)
        if hardened.git_dir is None:
            raise WorktreeError(f"{root} is not a git repository: worktrees need one")
        return cls(hardened.root, hardened.git_dir, hardened.env)

    def run(self, *args: str, input: bytes | None = None,  # noqa: A002
            env: Mapping[str, str] | None = None, check: bool = True) -> bytes:
        done = self.call(*args, input=input, env=env)
        if check and done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip()
            raise WorktreeError(f"git {args[0]} failed in {self.root}: {said}")
        return done.stdout

    def call(self, *args: str, input: bytes | None = None,  # noqa: A002
             env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", "--no-pager", *args], cwd=self.root, input=input,
                              env={**self.env, **(env or {})}, capture_output=True,
                              timeout=GIT_TIMEOUT_S,
                              stdin=None if input is not None else subprocess.DEVNULL)

    def text(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        return self.run(*args, env=env).decode(errors="surrogateescape").strip()

    def common_dir(self) -> Path:
        return (self.root / self.text("rev-parse", "--git-common-dir")).resolve()

    def head(self) -> str:
        done = self.call("rev-parse", "--verify", "-q", "HEAD^{commit}")
        if done.returncode != 0:
            raise WorktreeError(f"{self.root} has no commit yet: commit once, then a worktree "
                                "can start from it")
        return done.stdout.decode().strip()

    def commit_tree(self, tree: str, parent: str, message: str) -> str:
        return self.text("commit-tree", tree, "-p", parent, "-m", message, env=IDENTITY)

    def tree_of(self, commit: str) -> str:
        return self.text("rev-parse", f"{commit}^{{tree}}")

    def changed(self, a: str, b: str) -> list[str]:
        """Paths that differ between two trees (renames as a delete and an add)."""
        out = self.run("diff-tree", "-r", "--no-renames", "--name-only", "-z", a, b)
        return [p for p in out.decode(errors="surrogateescape").split("\0") if p]

    def state(self) -> TreeState:
        """The working tree's files as trees, through a copy of its index: the index file, the
        files and the stash list stay as they were (only objects are added)."""
        index = self.git_dir / "index"
        with tempfile.TemporaryDirectory(prefix="valarmind-index-") as scratch:
            copy = Path(scratch) / "index"
            if index.is_file():
                shutil.copyfile(index, copy)
            env = {"GIT_INDEX_FILE": str(copy)}
            staged = self.text("write-tree", env=env) if copy.exists() else EMPTY_TREE
            self.run("add", "-A", "--", ".", env=env)
            full = self.text("write-tree", env=env)
        return TreeState(staged, full)


def valid_name(name: str) -> str:
    """A worktree's name as given, or WorktreeError: letters, digits, `.`, `_`, `-`, not first
    a `-` or `.` (it becomes a folder and a branch name, never an option)."""
    ok = (0 < len(name) <= 64 and name[0].isalnum() and ".." not in name
          and all(c.isalnum() or c in "._-" for c in name) and not name.endswith(".lock"))
    if not ok or not name.isascii():
        raise WorktreeError(f"{name!r} is not a worktree name: use letters, digits, '.', '_' "
                            "and '-', starting with a letter or digit (at most 64)")
    return name


def remove_tree(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        path.unlink()
