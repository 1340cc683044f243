"""safety.git_hardening on the layouts people really have: a linked worktree, a submodule
checkout opened as the project, a folder inside a repository, and the person's own config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from valarmind_tui.safety.git_hardening import (
    Purpose,
    RepositoryRefused,
    harden,
    locate_git_dir,
)

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **IDENTITY}).stdout


def hardened(root: Path, *args: str, purpose: Purpose = Purpose.READ) -> str:
    run = harden(root, purpose)
    return subprocess.run([*run.argv, *args], cwd=root, env=run.env, capture_output=True,
                          text=True, check=True).stdout


def test_a_linked_worktree_is_its_repositorys(git_repo: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    git(git_repo, "worktree", "add", "-q", "-b", "side", str(tree))
    (tree / "app.py").write_text("changed = 1\n")
    assert locate_git_dir(tree) == (git_repo / ".git" / "worktrees" / "tree").resolve()
    assert hardened(tree, "status", "--short").strip() == "M app.py"
    assert hardened(tree, "rev-parse", "--abbrev-ref", "HEAD").strip() == "side"


def test_a_gitdir_file_to_an_unrelated_repository_is_refused(git_repo: Path,
                                                             tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").write_text(f"gitdir: {git_repo / '.git'}\n")
    with pytest.raises(RepositoryRefused, match="outside the project"):
        harden(project)


def test_a_submodule_checkout_opened_as_the_project(git_repo: Path, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    (sub / "a.py").write_text("a = 1\n")
    git(sub, "add", "-A")
    git(sub, "commit", "-qm", "a")
    git(git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    (git_repo / "sub" / "a.py").write_text("a = 2\n")
    assert hardened(git_repo / "sub", "status", "--short").strip() == "M a.py"


def test_a_folder_inside_a_repository_is_not_one(git_repo: Path) -> None:
    """git never walks above the project (GIT_CEILING_DIRECTORIES)."""
    inner = git_repo / "pkg"
    inner.mkdir()
    run = harden(inner)
    done = subprocess.run([*run.argv, "status"], cwd=inner, env=run.env, capture_output=True,
                          text=True)
    assert run.git_dir is None and "not a git repository" in done.stderr


def test_the_persons_own_filter_applies(git_repo: Path, tmp_path: Path) -> None:
    """A filter both the person's ~/.gitconfig and the repository define keeps the person's."""
    (Path(os.environ["HOME"]) / ".gitconfig").write_text('[filter "up"]\n\tclean = tr a-z A-Z\n')
    git(git_repo, "config", "filter.up.clean", f"touch {tmp_path / 'ran'}")
    (git_repo / ".gitattributes").write_text("*.txt filter=up\n")
    (git_repo / "n.txt").write_text("hello\n")
    hardened(git_repo, "add", "n.txt", purpose=Purpose.READ)
    assert hardened(git_repo, "show", ":n.txt") == "HELLO\n"
    assert not (tmp_path / "ran").exists()
