"""/setup and /context in a session: what of a person's setup loaded, each context file's size."""

from __future__ import annotations

from pathlib import Path

from tests.setup.conftest import place, user_settings
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings


async def test_setup_lists_what_loaded_and_what_did_not_and_why(
        git_repo: Path, isolated_home: Path) -> None:
    place("ruff", git_repo)
    user_settings(isolated_home)
    session = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    shown = await session.run_command("/setup")
    assert shown.ok
    assert f"Setup found for {git_repo}: folder not trusted" in shown.text
    assert "hooks: 2 of 4 loaded" in shown.text  # the command and the prompt handler
    assert ("-- SessionStart  [project, .claude/settings.json]: untrusted folder: a project's "
            "hooks wait for /trust yes") in shown.text
    assert ("-- TeammateIdle  [user, ~/.claude/settings.json]: unknown hook event "
            "'TeammateIdle'; that entry was skipped") in shown.text
    assert "context files: 2 of 2 loaded" in shown.text
    assert len(shown.text.splitlines()) <= 40  # one screen
    rows = shown.data
    assert sum(r["kind"] == "permission rule" and r["loaded"] for r in rows) == 13
    trusted = build_session(load_settings(git_repo, trusted=True), git_repo,
                            approver=PolicyApprover())
    again = await trusted.run_command("/setup")
    assert "hooks: 3 of 4 loaded" in again.text and "folder trusted" in again.text


async def test_context_shows_each_file_with_its_size(git_repo: Path, isolated_home: Path) -> None:
    place("ruff", git_repo)
    (isolated_home / ".gemini").mkdir()
    (isolated_home / ".gemini" / "GEMINI.md").write_text("Answer briefly.\n")
    session = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    shown = await session.run_command("/context")
    size = (git_repo / "AGENTS.md").stat().st_size
    assert "project context files:" in shown.text
    assert "  ~/.gemini/GEMINI.md: 16 bytes, " in shown.text
    assert f"  AGENTS.md: {size:,} bytes, " in shown.text
    assert "  CLAUDE.md: 47 bytes, " in shown.text
