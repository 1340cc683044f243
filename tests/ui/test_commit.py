"""/commit in the TUI: each check asks, each step shows, and the message is edited before git
commits it (a real repository, the model played by the fake server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static, TextArea

from tests.agents.commit.conftest import IDENTITY, MAKE_OK, approved, git, head_subject
from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import screen_shown, wait_for
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen
from valarmind_tui.faces.tui.screens.commit_message import CommitMessageScreen
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.messages import NoticeLine


@pytest.fixture
def staged(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    (git_repo / "Makefile").write_text(MAKE_OK)
    git(git_repo, "add", "Makefile")
    git(git_repo, "commit", "-qm", "make")
    (git_repo / "util.py").write_text("def farewell(name):\n    return 'Bye ' + name\n")
    git(git_repo, "add", "util.py")
    return git_repo


async def _approve_checks(pilot: Any, app: Any) -> list[str]:
    asked = []
    for _ in range(2):  # make lint, make test
        screen = await screen_shown(pilot, app, ApprovalScreen)
        asked.append(str(screen.query_one("#command", Static).render()))
        await pilot.press("y")
        await wait_for(pilot, lambda s=screen: app.screen is not s)
    return asked


async def test_commit_message_is_edited_before_the_commit(
    make_session, make_app, fake_model, staged: Path
) -> None:
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/commit", "enter")
        assert await _approve_checks(pilot, app) == ["$ make lint", "$ make test"]
        editor = await screen_shown(pilot, app, CommitMessageScreen, timeout=60)
        area = editor.query_one("#message", TextArea)
        assert area.text == "feat: add farewell"
        await wait_for(pilot, lambda: area.has_focus)
        assert "Written by the model" in str(editor.query_one("#drafted", Static).render())
        assert head_subject(staged) == "make"  # nothing committed while the person edits
        await pilot.press("end", *" to util", "ctrl+s")
        output = await wait_for(pilot, lambda: list(app.query(CommandOutput)), timeout=30)
        assert not output[-1].has_class("-error")
        notices = [str(n.render()) for n in app.query(NoticeLine)]
        assert [n.split(":")[0] for n in notices if n.startswith("commit · ")] == [
            "commit · check", "commit · confirm", "commit · message", "commit · commit"]
    assert head_subject(staged) == "feat: add farewell to util"


async def test_escape_in_the_editor_cancels_the_commit(
    make_session, make_app, fake_model, staged: Path
) -> None:
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/commit", "enter")
        await _approve_checks(pilot, app)
        await screen_shown(pilot, app, CommitMessageScreen, timeout=60)
        await pilot.press("escape")
        output = await wait_for(pilot, lambda: list(app.query(CommandOutput)), timeout=30)
        assert output[-1].has_class("-error")
    assert head_subject(staged) == "make"
    assert "util.py" in git(staged, "diff", "--cached", "--name-only")
