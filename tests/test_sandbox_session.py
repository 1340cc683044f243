"""The session's sandbox: `/sandbox`, and `!command` running inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings


def session(root: Path, **settings: object) -> Session:
    approver = PolicyApprover(allow_writes=True, allow_execute=True)
    return build_session(Settings(**settings), root, approver=approver)  # type: ignore[arg-type]


async def test_sandbox_command_shows_the_policy(git_repo: Path) -> None:
    live = session(git_repo)
    if not live.sandbox.active:
        pytest.skip(f"bubblewrap cannot run here: {live.sandbox.reason}")
    result = await live.run_command("/sandbox")
    assert result.ok and result.text.startswith("Sandbox: on")
    assert f"writable: {git_repo}" in result.text and result.data["active"]


async def test_sandbox_off_in_config(git_repo: Path) -> None:
    live = session(git_repo, sandbox="off")
    result = await live.run_command("/sandbox")
    assert result.ok and "turned off in your config" in result.text
    assert live.sandbox.status_label() == "sandbox off"


async def test_shell_commands_run_in_the_sandbox(git_repo: Path, tmp_path: Path) -> None:
    live = session(git_repo)
    if not live.sandbox.active:
        pytest.skip(f"bubblewrap cannot run here: {live.sandbox.reason}")
    outside = tmp_path / "outside.txt"
    await live.run_shell(f"touch {outside}; echo ok > inside.txt")
    assert not outside.exists() and (git_repo / "inside.txt").read_text() == "ok\n"


async def test_qa_says_a_denied_command_did_not_run(git_repo: Path) -> None:
    """A test command the person denied showed as "failed"."""
    (git_repo / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["pytest"]\n')
    live = build_session(Settings(), git_repo, approver=PolicyApprover())  # denies every command
    result = await live.run_command("/qa")
    assert "`pytest -q` (test): not run (denied)" in result.text
    assert "failed" not in result.text and not result.ok


async def test_help_agents_and_hooks_explain_themselves(git_repo: Path) -> None:
    """/help named no keys and no !command; /agents showed `rw-W-` with no legend; /hooks sent
    a pip user to a README they do not have."""
    live = session(git_repo)
    helped = (await live.run_command("/help")).text
    for key in ("Shift+Tab", "Esc", "Ctrl+B", "Ctrl+C twice", "`!command`", "Tab completes"):
        assert key in helped
    assert "r read, w write, x execute commands, W web, s spawn agents" in (
        await live.run_command("/agents")).text
    hooks = (await live.run_command("/hooks")).text
    assert "README" not in hooks and "[[hooks.PostToolUse]]" in hooks


async def test_review_outside_a_repository_answers_where_it_was_typed(tmp_path: Path) -> None:
    """The TUI showed only a toast, "Background task 'run_command' failed"."""
    (tmp_path / "a.py").write_text("x = 1\n")
    result = await session(tmp_path).run_command("/review")
    assert not result.ok and "is not a git repository: name the files to review" in result.text
