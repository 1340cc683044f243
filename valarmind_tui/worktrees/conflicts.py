"""What merging a worktree back would run into, predicted without writing a file: the files it
and the person's working tree (uncommitted changes included) both changed, those whose changes
overlap (the same hunks: a three-way merge conflict), and the same against every other live
worktree, whose own merge would meet this one's later.

Each side is a commit on top of its worktree's base (ValarMind's bookkeeping, never on a branch),
so `git merge-tree --write-tree` (git 2.38) finds the base itself and writes only objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from valarmind_tui.worktrees.git import RepoGit, WorktreeError
from valarmind_tui.worktrees.worktree import Worktree

YOUR_TREE = "your working tree"


@dataclass(frozen=True)
class Overlap:
    """This worktree's changes against one other side's."""

    other: str
    """YOUR_TREE or `worktree NAME`."""
    same_files: tuple[str, ...]
    """Files both changed (merged cleanly unless also in `conflicts`)."""
    conflicts: tuple[str, ...]
    """Files whose changes overlap: git cannot merge them."""


@dataclass
class Prediction:
    changed: tuple[str, ...]
    """The files the worktree changed since its base."""
    with_you: Overlap
    with_others: list[Overlap] = field(default_factory=list)
    merged_tree: str | None = None
    """The merge of the worktree into your tree, when it has no conflict."""

    def lines(self) -> list[str]:
        out = [f"changes {len(self.changed)} file(s): {_names(self.changed)}"]
        for overlap in [self.with_you, *self.with_others]:
            if overlap.conflicts:
                out.append(f"CONFLICT with {overlap.other} (the same lines changed): "
                           f"{_names(overlap.conflicts)}")
            clean = [f for f in overlap.same_files if f not in overlap.conflicts]
            if clean:
                out.append(f"also changed in {overlap.other}, merged cleanly: {_names(clean)}")
        if len(out) == 1:
            out.append("no other tree changed these files")
        return out


@dataclass(frozen=True)
class Side:
    """One tree to merge: `tree` and the base it changed from (a commit)."""

    label: str
    base: str
    tree: str


def predict(git: RepoGit, worktree: Worktree, tree: str, yours: str,
            others: list[Side]) -> Prediction:
    """`tree` is the worktree's files now, `yours` the person's working tree now."""
    base_tree = git.tree_of(worktree.base)
    mine = Side(f"worktree {worktree.name}", worktree.base, tree)
    with_you, merged = overlap(git, mine, Side(YOUR_TREE, worktree.base, yours))
    found = Prediction(tuple(git.changed(base_tree, tree)), with_you, merged_tree=merged)
    for other in others:
        found.with_others.append(overlap(git, mine, other)[0])
    return found


def overlap(git: RepoGit, a: Side, b: Side) -> tuple[Overlap, str | None]:
    """Files both sides changed from their bases, those git cannot merge, and the merged tree
    when it can."""
    a_changed = set(git.changed(git.tree_of(a.base), a.tree))
    b_changed = set(git.changed(git.tree_of(b.base), b.tree))
    ours = git.commit_tree(b.tree, b.base, f"valarmind: {b.label}")
    theirs = git.commit_tree(a.tree, a.base, f"valarmind: {a.label}")
    done = git.call("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z",
                    ours, theirs)
    if done.returncode not in (0, 1):
        said = done.stderr.decode(errors="replace").strip()
        raise WorktreeError(f"git merge-tree failed (git 2.38 or later is needed): {said}")
    words = [w for w in done.stdout.decode(errors="surrogateescape").split("\0") if w]
    merged, conflicted = words[0], tuple(dict.fromkeys(words[1:]))
    same = tuple(sorted(a_changed & b_changed | set(conflicted)))
    return (Overlap(b.label, same, conflicted),
            merged if done.returncode == 0 else None)


def _names(paths: tuple[str, ...] | list[str], most: int = 8) -> str:
    shown = ", ".join(paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")
