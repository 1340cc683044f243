"""A command in a worktree's sandbox (the worktree lives in ValarMind's data dir, which the
sandbox hides) sees its worktree and the repository's git dir, but not the rest of the data dir
(stored sessions, checkpoints, the other worktrees), not the person's own tree, and can write
none of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.worktrees.conftest import GIT_ENV
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.worktree import create


@pytest.mark.parametrize("data_outside_home", [False, True])
def test_a_worktree_command_reaches_nothing_else_of_the_data_dir(
        git_repo: Path, sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        data_outside_home: bool) -> None:
    if data_outside_home:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    project = git_repo
    (project / "app.py").write_text("print('Hi there')\n")  # the person's work in progress
    secret = user_data_dir() / "sessions.db"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text("stored conversations")
    mine, other = create(project, "mine"), create(project, "other")
    script = (f"cat {secret}; cat {other.path}/app.py; cat {project}/app.py; "
              f"echo x > {secret}; echo x > {other.path}/app.py; echo x > {project}/app.py; "
              f"echo x > {user_data_dir()}/planted; echo ok > inside.txt; true")
    env = {**child_env(mine.path), **GIT_ENV}
    with sandbox.guard(mine.path):
        done = subprocess.run(sandbox.wrap(["bash", "-c", script], mine.path, env=env),
                              capture_output=True, text=True, timeout=60)
    assert "stored conversations" not in done.stdout
    assert "Hi " not in done.stdout  # neither the other worktree's nor the person's app.py
    assert secret.read_text() == "stored conversations"
    assert "Hi " in (other.path / "app.py").read_text()
    assert "Hi " in (project / "app.py").read_text()
    assert not (user_data_dir() / "planted").exists()
    assert (mine.path / "inside.txt").read_text() == "ok\n"
