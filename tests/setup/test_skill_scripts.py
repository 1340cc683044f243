"""A user-level skill's scripts run where the skill says they are, inside the sandbox: its
folder comes back read-only under the hidden HOME, and nothing else of `~/.claude` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.conftest import home_outside_tmp
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings


async def test_a_user_skills_script_runs_in_the_sandbox(
    git_repo: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    with home_outside_tmp(monkeypatch) as home:
        skill = home / ".claude/skills/greet"
        (skill / "scripts").mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: greet\ndescription: says hello\n---\n"
                                        "Run scripts/hello.sh.\n")
        (skill / "scripts/hello.sh").write_text("echo hello from the skill\n")
        (home / ".claude/.credentials.json").write_text('{"token": "never-seen"}\n')
        session = build_session(load_settings(git_repo), git_repo,
                          approver=PolicyApprover(allow_execute=True))
        assert session.sandbox.active
        ran = await session.run_shell(f"sh {skill}/scripts/hello.sh")
        assert "hello from the skill" in ran.output and not ran.is_error
        hidden = await session.run_shell(f"cat {home}/.claude/.credentials.json")
        assert "never-seen" not in hidden.output and hidden.is_error
        written = await session.run_shell(f"touch {skill}/scripts/new")
        assert written.is_error and not (skill / "scripts/new").exists()
