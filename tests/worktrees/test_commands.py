"""/worktree and /fork from a session: a worktree made, merged and removed; two attempts
compared and the person's pick merged."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.worktrees.test_best_of import CHECK, _attempt_script
from valarmind_tui.core.events import AgentFinished, AgentSpawned
from valarmind_tui.session.wiring import open_session
from valarmind_tui.settings.config import Settings


async def test_worktree_made_merged_and_removed_from_a_session(project: Path) -> None:
    session = open_session(Settings(), project)
    try:
        made = await session.run_command("/worktree spike")
        assert made.ok, made.text
        assert "valarmind --worktree spike" in made.text
        path = Path(made.text.split(" at ", 1)[1].split(",", 1)[0])
        (path / "lib.py").write_text("rewritten\n")
        listed = await session.run_command("/worktree")
        assert "spike" in listed.text and "1 file(s) not merged" in listed.text
        preview = await session.run_command("/worktree preview spike")
        assert "changes 1 file(s): lib.py" in preview.text
        merged = await session.run_command("/worktree merge spike --check 'grep -q rewritten "
                                           "lib.py'")
        assert merged.ok, merged.text
        assert "passed" in merged.text
        assert (project / "lib.py").read_text() == "rewritten\n"
        removed = await session.run_command("/worktree remove spike")
        assert removed.ok, removed.text
        assert not path.exists()
        wrong = await session.run_command("/worktree merge")
        assert not wrong.ok and "usage" in wrong.text
    finally:
        await session.close()


async def test_fork_compares_attempts_and_the_person_picks(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script_for("fake-a", *_attempt_script("'Yo ' + name"))
    fake_model.script_for("fake-b", *_attempt_script("'Hello, ' + name + '!'"))
    settings = Settings(model="openai/fake-a", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY")
    session = open_session(settings, git_repo)
    seen: list[Any] = []
    session.bus.add_listener(seen.append)
    try:
        result = await session.run_command(
            f"/fork 2 --models openai/fake-a,openai/fake-b --check {shlex.quote(CHECK)} greet "
            "'politely'")
        assert result.ok, result.text
        assert "[openai/fake-b]: PASSED" in result.text
        assert "[openai/fake-a]: failed" in result.text
        assert "attempts disagree on: app.py" in result.text
        # the agent monitor shows each attempt: started, then passed (done) or not (failed)
        started = {e.agent_id: e.task for e in seen if isinstance(e, AgentSpawned)}
        ended = {e.agent_id: e.status for e in seen if isinstance(e, AgentFinished)}
        assert sorted(started.values()) == ["openai/fake-a", "openai/fake-b"]
        by_model = {started[agent]: status for agent, status in ended.items()}
        assert by_model == {"openai/fake-a": "failed", "openai/fake-b": "done"}
        passing = result.text.rsplit("(passing: ", 1)[1].rstrip(")")
        assert (git_repo / "app.py").read_text().count("Hello ") == 1  # nothing merged yet
        merged = await session.run_command(
            f"/worktree merge {passing} --check {shlex.quote(CHECK)}")
        assert merged.ok, merged.text
        assert "'Hello, ' + name + '!'" in (git_repo / "app.py").read_text()
    finally:
        await session.close()
