"""A checkpoint killed half-way leaves git's `index.lock` in the shadow repository: the next
`valarmind undo` clears it (no live process holds it) and works; one a live process holds is
left alone, and undo says so in one line, never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import shell_turn, tree_state, write
from tests.checkpoints.test_headless import ENV, configure
from tests.test_headless import model_flags, valarmind
from valarmind_tui.checkpoints.shadow import shadow_dir
from valarmind_tui.core.user_dirs import user_data_dir


def _one_turn(git_repo: Path, fake_model: Any) -> Path:
    configure()
    fake_model.script(*shell_turn(write("made.txt", "new\n")))
    out = valarmind("-p", "make a file", "--permission-mode", "bypass",
                    *model_flags(fake_model), cwd=git_repo, env=ENV)
    assert out.returncode == 0, out.stderr
    assert (git_repo / "made.txt").exists()
    return shadow_dir(git_repo, user_data_dir())


def test_a_lock_left_by_a_killed_checkpoint_is_cleared(git_repo: Path, fake_model: Any) -> None:
    shadow = _one_turn(git_repo, fake_model)
    (shadow / "index.lock").write_bytes(b"")  # as `kill -9` of the group leaves it
    (shadow / "refs" / "valarmind").mkdir(parents=True, exist_ok=True)
    (shadow / "refs" / "valarmind" / "left.lock").write_bytes(b"")
    undone = valarmind("undo", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert not (git_repo / "made.txt").exists()
    assert not (shadow / "index.lock").exists()


def test_a_lock_a_live_process_holds_is_left_and_undo_says_so(
        git_repo: Path, fake_model: Any) -> None:
    shadow = _one_turn(git_repo, fake_model)
    lock = shadow / "index.lock"
    with lock.open("wb") as held:
        holder = subprocess.Popen(["sleep", "60"], stdout=held)
    try:
        before = tree_state(git_repo)
        undone = valarmind("undo", cwd=git_repo)
        assert undone.returncode != 0
        assert "Traceback" not in undone.stderr
        assert "undo failed: the checkpoints could not be read or restored" in undone.stderr
        assert "index.lock" in undone.stderr
        assert lock.exists() and tree_state(git_repo) == before
    finally:
        holder.kill()
        holder.wait()
