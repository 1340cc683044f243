"""A merge you can trust: predict, show, check the merged result in a scratch worktree, and only
then write it onto the person's working tree.

Order: the worktree's files and the person's are read as trees (neither index written); a
conflict with the person's tree refuses the merge (conflicts with other live worktrees are shown:
they are that worktree's to meet); the merged tree is checked out in a scratch worktree and the
checks run there, in the sandbox; the person's tree is read again, and if it changed meanwhile
the merge is refused; then the difference between their tree and the merged one is applied to
their files only (`git apply`, which checks every hunk before it writes one: all or nothing),
never their index, stash or branch: the result is theirs to review and commit. When their tree
is still the worktree's base, the result is exactly the worktree's files (a fast-forward of the
files). Commits made inside the worktree stay on its branch. Any refusal leaves both trees as
they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.checks import NO_CHECKS, CheckVerdict, passed
from valarmind_tui.worktrees.conflicts import Prediction, Side, predict
from valarmind_tui.worktrees.git import RepoGit, WorktreeError
from valarmind_tui.worktrees.scratch import check_tree
from valarmind_tui.worktrees.worktree import Worktree, get, list_all


@dataclass
class MergeReport:
    name: str
    merged: bool
    why: str
    """What happened, in a sentence."""
    prediction: Prediction | None = None
    verdicts: list[CheckVerdict] = field(default_factory=list)
    fast_forward: bool = False
    checked: bool = True
    """False: no check was given or allowed (said in the lines)."""

    def lines(self) -> list[str]:
        out = list(self.prediction.lines()) if self.prediction else []
        for v in self.verdicts:
            state = "passed" if v.passed else (
                "timed out" if v.exit_code is None else f"failed (exit {v.exit_code})")
            out.append(f"check `{v.command}` on the merged tree: {state} in {v.seconds:.1f} s")
        if not self.checked:
            out.append(NO_CHECKS)
        out.append(self.why)
        return out


def preview(project_root: Path, name: str) -> Prediction:
    """The prediction alone: nothing written but objects."""
    git = RepoGit.of(project_root)
    worktree = get(project_root, name)
    return _predict(git, worktree, RepoGit.of(worktree.path).state().full, git.state().full)


def merge(project_root: Path, name: str, checks: Sequence[str], sandbox: Sandbox) -> MergeReport:
    """Merge worktree NAME into the person's working tree (see the module docstring)."""
    git = RepoGit.of(project_root)
    worktree = get(project_root, name)
    tree = RepoGit.of(worktree.path).state().full
    yours = git.state().full
    if tree == git.tree_of(worktree.base):
        return MergeReport(name, False, f"worktree {name} changed nothing: nothing to merge")
    prediction = _predict(git, worktree, tree, yours)
    report = MergeReport(name, False, "", prediction)
    merged = prediction.merged_tree
    if merged is None:
        report.why = ("not merged: it conflicts with your working tree (above); nothing was "
                      "written. Resolve it in the worktree or in your tree, then merge again")
        return report
    report.checked = bool(checks)
    if checks:
        report.verdicts = check_tree(git, merged, checks, sandbox)
        if not passed(report.verdicts):
            report.why = "not merged: the checks failed on the merged tree; nothing was written"
            return report
    if git.state().full != yours:
        report.why = ("not merged: your working tree changed while the checks ran; nothing "
                      "was written. Merge again")
        return report
    _apply(git, yours, merged)
    git.run("update-ref", worktree.merged_ref,
            git.commit_tree(tree, worktree.base, f"valarmind: worktree {name}, merged"))
    report.merged = True
    report.fast_forward = yours == git.tree_of(worktree.base)
    how = "its files as they are (your tree had not changed)" if report.fast_forward else (
        "three-way, with your uncommitted changes kept")
    report.why = (f"merged worktree {name} into your working tree: {how}; review and commit "
                  f"it. Its branch {worktree.branch} stays until you remove the worktree")
    return report


def _predict(git: RepoGit, worktree: Worktree, tree: str, yours: str) -> Prediction:
    others = [Side(f"worktree {w.name}", w.base, RepoGit.of(w.path).state().full)
              for w in list_all(git.root) if w.name != worktree.name and w.path.is_dir()]
    return predict(git, worktree, tree, yours, others)


def _apply(git: RepoGit, yours: str, merged: str) -> None:
    """Write the difference onto the person's files, all or nothing."""
    patch = git.run("diff-tree", "-p", "--binary", "--full-index", "--no-renames",
                    "--no-textconv", yours, merged)
    if not patch:
        return
    done = git.call("apply", "--binary", "--whitespace=nowarn", "-", input=patch)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()
        raise WorktreeError(f"not merged: git could not apply the merge to your files ({said}); "
                            "nothing was written")
