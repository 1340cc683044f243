"""`git commit` from bash inside a worktree, under the sandbox: the worktree's admin dir and the
common objects and refs are writable, the repository's config and hooks are not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.worktrees.conftest import GIT_ENV, git
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.worktree import create


def _sandboxed(sandbox: Sandbox, root: Path, script: str) -> subprocess.CompletedProcess[str]:
    env = {**child_env(root), **GIT_ENV}
    with sandbox.guard(root):
        return subprocess.run(sandbox.wrap(["bash", "-c", script], root, env=env),
                              capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("data_outside_home", [False, True])
def test_git_commit_from_bash_inside_a_worktree(
        project: Path, sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        data_outside_home: bool) -> None:
    if data_outside_home:  # the data dir is then covered read-only, but for the worktree
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    worktree = create(project, "w")
    (worktree.path / "app.py").write_text("print('from the worktree')\n")
    done = _sandboxed(sandbox, worktree.path,
                      "git add -A && git commit -qm 'agent work' && git log -1 --format=%s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "agent work"
    assert git(project, "log", "-1", "--format=%s", "valarmind/w").strip() == "agent work"
    assert git(project, "status", "--short", "app.py").strip() == "M app.py"  # theirs untouched


def test_the_repositorys_config_and_hooks_stay_read_only_from_a_worktree(
        project: Path, sandbox: Sandbox) -> None:
    worktree = create(project, "w")
    config = (project / ".git" / "config").read_bytes()
    done = _sandboxed(sandbox, worktree.path, (
        "git config core.hooksPath /tmp/evil; "
        f"echo 'touch /tmp/pwned' > {project}/.git/hooks/post-checkout; "
        f"echo x >> {project}/.git/config; "
        "admin=$(git rev-parse --absolute-git-dir); echo '[core]' > $admin/config.worktree; "
        f"echo hi > {project}/app.py; true"))
    assert done.returncode == 0
    assert (project / ".git" / "config").read_bytes() == config
    assert not (project / ".git" / "hooks" / "post-checkout").exists()
    admin = Path(git(worktree.path, "rev-parse", "--absolute-git-dir").strip())
    assert not (admin / "config.worktree").exists()
    assert "Hi " in (project / "app.py").read_text()  # the person's tree is not even visible


def test_commands_in_several_worktrees_at_once_share_no_placeholder(project: Path) -> None:
    """Parallel attempts run sandboxed commands in several worktrees of one repository: none of
    them may need a placeholder mount in the shared git dir, which another command's guard
    would remove under it."""
    from valarmind_tui.safety.sandbox.project import project_plan

    worktree = create(project, "w")
    common = project / ".git"
    plan = project_plan(worktree.path).args
    placeholders = [plan[i + 1] for i, arg in enumerate(plan) if arg == "--tmpfs"]
    assert not [p for p in placeholders if Path(p).is_relative_to(common)], placeholders
