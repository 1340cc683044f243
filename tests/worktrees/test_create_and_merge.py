"""Worktrees on real repositories: made from HEAD plus the work in progress without touching the
person's tree, conflicts predicted before a merge, a refused merge leaving every byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.worktrees.conftest import every_byte, git
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.git import WorktreeError
from valarmind_tui.worktrees.merge import merge, preview
from valarmind_tui.worktrees.worktree import create, list_all, remove, worktrees_home

NO_SANDBOX = Sandbox(None, reason="turned off in your config")


def _edit_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[number - 1] = text + "\n"
    path.write_text("".join(lines))


def test_a_worktree_holds_the_work_in_progress_and_touches_nothing_of_the_person(
        project: Path) -> None:
    git(project, "stash", "list")
    before = every_byte(project)
    worktree = create(project, "feature")
    after = every_byte(project)
    assert after.pop(".git/refs/heads/valarmind/feature")  # the one thing added: its branch
    assert after == before
    assert git(project, "stash", "list") == ""
    assert worktree.path.is_relative_to(worktrees_home(project))
    assert not worktree.path.is_relative_to(project)
    assert (worktree.path / "notes.txt").read_text() == "untracked\n"
    assert "Hi " in (worktree.path / "app.py").read_text()
    assert not (worktree.path / "build").exists()  # ignored: left out
    status = git(worktree.path, "status", "--short").splitlines()
    assert sorted(status) == sorted(["M  README.md", " M app.py", "?? notes.txt"])
    assert git(worktree.path, "branch", "--show-current").strip() == "valarmind/feature"
    assert [w.name for w in list_all(project)] == ["feature"]
    with pytest.raises(WorktreeError, match="exists already"):
        create(project, "feature")
    with pytest.raises(WorktreeError, match="not a worktree name"):
        create(project, "--upload-pack=x")


def test_two_worktrees_on_one_file_the_conflict_is_shown_before_and_nothing_is_lost(
        project: Path) -> None:
    first, second = create(project, "one"), create(project, "two")
    _edit_line(first.path / "lib.py", 10, "first's line 10")
    _edit_line(second.path / "lib.py", 10, "second's line 10")
    _edit_line(second.path / "lib.py", 25, "second's line 25")

    predicted = preview(project, "one")
    assert predicted.with_you.conflicts == ()
    (clash,) = predicted.with_others
    assert clash.other == "worktree two" and clash.conflicts == ("lib.py",)
    assert any("CONFLICT with worktree two" in line and "lib.py" in line
               for line in predicted.lines())

    done = merge(project, "one", [], NO_SANDBOX)
    assert done.merged and done.fast_forward  # the person's tree was still both bases
    assert "first's line 10" in (project / "lib.py").read_text()
    assert "Hi " in (project / "app.py").read_text()  # their uncommitted change kept
    assert (project / "notes.txt").read_text() == "untracked\n"

    person, theirs = every_byte(project), every_byte(second.path)
    again = preview(project, "two")
    assert again.with_you.conflicts == ("lib.py",)
    refused = merge(project, "two", [], NO_SANDBOX)
    assert not refused.merged and "conflicts with your working tree" in refused.why
    assert every_byte(project) == person
    assert every_byte(second.path) == theirs
    assert "second's line 25" in (second.path / "lib.py").read_text()


def test_a_merge_keeps_the_persons_later_changes_to_the_same_file(project: Path) -> None:
    worktree = create(project, "w")
    _edit_line(worktree.path / "lib.py", 3, "from the worktree")
    _edit_line(project / "lib.py", 28, "typed by the person meanwhile")
    predicted = preview(project, "w")
    assert predicted.with_you.same_files == ("lib.py",) and not predicted.with_you.conflicts
    index = (project / ".git" / "index").read_bytes()
    done = merge(project, "w", [], NO_SANDBOX)
    assert done.merged and not done.fast_forward
    text = (project / "lib.py").read_text()
    assert "from the worktree" in text and "typed by the person meanwhile" in text
    assert (project / ".git" / "index").read_bytes() == index  # their staging untouched


def test_failing_checks_on_the_merged_tree_leave_both_trees_byte_for_byte(
        project: Path) -> None:
    worktree = create(project, "w")
    (worktree.path / "app.py").write_text("broken(\n")
    (worktree.path / "new_module.py").write_text("x = 1\n")
    person, theirs = every_byte(project), every_byte(worktree.path)
    check = "python3 -c \"import ast; ast.parse(open('app.py').read())\""
    report = merge(project, "w", [check], NO_SANDBOX)
    assert not report.merged and "checks failed" in report.why
    assert report.verdicts[0].passed is False and "SyntaxError" in report.verdicts[0].tail
    assert every_byte(project) == person
    assert every_byte(worktree.path) == theirs
    assert [p.name for p in worktrees_home(project).iterdir()] == ["w"]  # scratch removed
    assert "scratch" not in git(project, "worktree", "list")


def test_passing_checks_run_on_the_merged_tree_then_it_is_written(project: Path) -> None:
    worktree = create(project, "w")
    (worktree.path / "app.py").write_text("def greet(name):\n    return 'Hey ' + name\n")
    check = "grep -q Hey app.py && grep -q 'staged line' README.md"
    report = merge(project, "w", [check], NO_SANDBOX)
    assert report.merged, report.lines()
    assert report.fast_forward  # the person's tree was still the worktree's base
    assert (project / "app.py").read_text() == (worktree.path / "app.py").read_text()


def test_remove_keeps_unmerged_work_unless_forced(project: Path) -> None:
    worktree = create(project, "w")
    (worktree.path / "app.py").write_text("changed\n")
    with pytest.raises(WorktreeError, match="never merged"):
        remove(project, "w")
    assert worktree.path.is_dir() and "valarmind/w" in git(project, "branch", "--list")
    remove(project, "w", force=True)
    assert not worktree.path.exists()
    assert git(project, "branch", "--list", "valarmind/*") == ""
    assert list_all(project) == []


def test_a_merged_worktree_is_removed_without_force(project: Path) -> None:
    worktree = create(project, "w")
    (worktree.path / "app.py").write_text("changed\n")
    assert merge(project, "w", [], NO_SANDBOX).merged
    remove(project, "w")
    assert not worktree.path.exists()


def test_a_tree_changed_while_the_checks_ran_is_not_written_over(project: Path) -> None:
    worktree = create(project, "w")
    (worktree.path / "app.py").write_text("from the worktree\n")
    typed = f"echo 'typed meanwhile' >> {project}/notes.txt"  # the person, during the checks
    report = merge(project, "w", [typed], NO_SANDBOX)
    assert not report.merged and "changed while the checks ran" in report.why
    assert (project / "notes.txt").read_text() == "untracked\ntyped meanwhile\n"
    assert "Hi " in (project / "app.py").read_text()  # the merge wrote nothing
