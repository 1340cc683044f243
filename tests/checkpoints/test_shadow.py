"""The shadow repository on its own: what it records, what it leaves out, what it never runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.checkpoints.conftest import git_state, tree_state
from valarmind_tui.checkpoints import ShadowRepo
from valarmind_tui.checkpoints.shadow import shadow_dir
from valarmind_tui.core.user_dirs import user_data_dir


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


async def test_a_failing_checkpoint_turns_them_off_once(tmp_path: Path, monkeypatch) -> None:
    """A folder too large to record: one warning, the tool calls still run."""
    from valarmind_tui.checkpoints import SessionCheckpoints
    from valarmind_tui.checkpoints import shadow as shadow_module
    from valarmind_tui.core.bus import EventBus
    from valarmind_tui.core.events import Notice

    monkeypatch.setattr(shadow_module, "MAX_NEW_FILES", 3)
    root = tmp_path / "plain"
    root.mkdir()
    for n in range(5):
        (root / f"f{n}.txt").write_text(str(n))
    bus = EventBus()
    seen: list[object] = []
    bus.add_listener(seen.append)
    checkpoints = SessionCheckpoints(root, "s", bus)
    checkpoints.begin("x")
    await checkpoints.before_change("bash")
    await checkpoints.before_change("bash")
    await checkpoints.end()
    notices = [e for e in seen if isinstance(e, Notice)]
    assert len(notices) == 1 and "5 new files" in notices[0].message
    assert checkpoints.turns() == []


def test_a_restore_never_reaches_through_a_symlinked_folder(tmp_path: Path) -> None:
    """A folder swapped for a symlink between the snapshot and the write (a race): removing
    `pkg/x.txt` must not delete the file the link points at."""
    from valarmind_tui.checkpoints.tree_files import remove_file

    root = tmp_path / "plain"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("not the project's\n")
    (root / "pkg").symlink_to(outside)
    assert not remove_file(root / "pkg" / "x.txt", root)
    assert (outside / "x.txt").read_text() == "not the project's\n"
