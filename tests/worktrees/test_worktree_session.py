"""`valarmind --worktree NAME`: a run in a worktree of its own; its sessions, checkpoints and
undo belong to the worktree, and the person's tree never changes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.worktrees.conftest import every_byte


def valarmind(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "valarmind_tui", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "FAKE_API_KEY": "sk-test"})


def test_a_run_in_a_worktree_keeps_its_sessions_and_undo_there(
        git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    result = json.dumps({"summary": "rewrote app.py", "files_modified": [{"path": "app.py"}]})
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "rewrite app.py"}}]),
        ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
            "path": "app.py", "content": "print('worktree')\n"}}]),
        ScriptedTurn(text=result),
        ScriptedTurn(text="done."),
    )
    (git_repo / "wip.txt").write_text("work in progress\n")
    person = every_byte(git_repo)
    flags = ["--model", "openai/fake-model", "--api-base", fake_model.openai_base]
    done = valarmind("--worktree", "feat", "-p", "rewrite app.py", "--permission-mode",
                     "accept-edits", *flags, cwd=git_repo)
    assert done.returncode == 0, done.stderr

    listed = valarmind("worktrees", cwd=git_repo)
    path = Path(listed.stdout.split("\t")[-1].strip())
    assert listed.stdout.startswith("feat\tvalarmind/feat\t1 file(s) not merged")
    assert (path / "app.py").read_text() == "print('worktree')\n"
    assert (path / "wip.txt").read_text() == "work in progress\n"
    after = every_byte(git_repo)
    assert after.pop(".git/refs/heads/valarmind/feat")
    assert after == person

    here = json.loads(valarmind("sessions", "--json", cwd=git_repo).stdout)
    there = json.loads(valarmind("--worktree", "feat", "sessions", "--json", cwd=git_repo).stdout)
    assert here == [] and len(there) == 1

    undone = valarmind("--worktree", "feat", "undo", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert (path / "app.py").read_text() == "def greet(name):\n    return 'Hello ' + name\n"
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'Hello ' + name\n"


async def test_the_bash_tool_commits_inside_a_worktree_under_the_sandbox(
        git_repo: Path) -> None:
    """`!git commit` in a session opened in a worktree: the bash tool, through the gate, in the
    session's sandbox (which binds the worktree's admin dir and the common objects and refs)."""
    from valarmind_tui.safety.gate.approval import PolicyApprover
    from valarmind_tui.session.wiring import open_session
    from valarmind_tui.settings.config import Settings
    from valarmind_tui.worktrees.worktree import create

    (Path.home() / ".gitconfig").write_text("[user]\n\tname = agent\n\temail = a@example.com\n")
    worktree = create(git_repo, "c")
    (worktree.path / "test_app.py").write_text("def test_one():\n    assert True\n")
    session = open_session(Settings(), worktree.path,
                           approver=PolicyApprover(allow_writes=True, allow_execute=True))
    try:
        if not session.sandbox.active:
            pytest.skip(f"bubblewrap cannot run here: {session.sandbox.reason}")
        done = await asyncio.wait_for(session.run_shell(
            "git add -A && git commit -qm 'agent commit' && git log -1 --format=%s"), 60)
    finally:
        await session.close()
    assert not done.is_error, done.output
    assert "agent commit" in done.output
    log = subprocess.run(["git", "log", "-1", "--format=%s", "valarmind/c"], cwd=git_repo,
                         capture_output=True, text=True).stdout
    assert log.strip() == "agent commit"
    assert not (git_repo / "test_app.py").exists()
