"""A merge's checks: an untrusted repository's own test command (a Makefile target here) never
runs unasked; the person's `--check` does, and a trusted project's detected command does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.worktrees.conftest import git
from valarmind_tui.worktrees.worktree import create

MAKEFILE = "test:\n\ttouch ran-the-repositorys-tests\n"


def _merge(root: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "valarmind_tui", "worktrees", "merge", "w",
                           *flags], cwd=root, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ))


def _repository(git_repo: Path) -> Path:
    (git_repo / "Makefile").write_text(MAKEFILE)
    git(git_repo, "add", "Makefile")
    git(git_repo, "commit", "-qm", "make")
    worktree = create(git_repo, "w")
    (worktree.path / "app.py").write_text("changed\n")
    return worktree.path


def test_an_untrusted_repositorys_test_command_is_not_run_by_a_merge(git_repo: Path) -> None:
    _repository(git_repo)
    done = _merge(git_repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no checks ran" in done.stdout and "make test" not in done.stdout


def test_the_persons_check_and_a_trusted_projects_test_command_run(git_repo: Path) -> None:
    _repository(git_repo)
    given = _merge(git_repo, "--check", "grep -q changed app.py", "--trust-project")
    assert given.returncode == 0, given.stdout + given.stderr
    assert "check `grep -q changed app.py` on the merged tree: passed" in given.stdout


def test_a_trusted_projects_detected_test_command_checks_the_merge(git_repo: Path) -> None:
    _repository(git_repo)
    done = _merge(git_repo, "--trust-project")
    assert "check `make test` on the merged tree: passed" in done.stdout, done.stdout
    assert done.returncode == 0
