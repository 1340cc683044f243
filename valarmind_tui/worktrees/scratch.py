"""Checks run on a tree checked out in a scratch worktree, removed afterwards: a merged result
before it is written, an attempt's result without the checks' own leftovers (caches, bytecode,
build output) becoming part of it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.checks import CheckVerdict, run_checks
from valarmind_tui.worktrees.git import RepoGit, remove_tree
from valarmind_tui.worktrees.worktree import main_root, worktrees_home


def check_tree(git: RepoGit, tree: str, checks: Sequence[str],
               sandbox: Sandbox) -> list[CheckVerdict]:
    """Run the checks on `tree` checked out in a scratch worktree, removed afterwards."""
    if not checks:
        return []
    scratch = worktrees_home(main_root(git.root)) / f".scratch-{uuid.uuid4().hex[:8]}"
    scratch.parent.mkdir(parents=True, exist_ok=True)
    git.run("worktree", "add", "--detach", "--no-checkout", str(scratch), git.head())
    try:
        RepoGit.of(scratch).run("read-tree", "-u", "--reset", tree)
        return run_checks(scratch, checks, sandbox)
    finally:
        git.call("worktree", "remove", "--force", "--force", str(scratch))
        remove_tree(scratch)
        git.call("worktree", "prune")
