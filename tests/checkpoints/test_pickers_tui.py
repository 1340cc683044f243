"""The /rewind and /resume pickers in the TUI (Pilot), over a real stored session whose
specialist runs bash against the fake model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import bash, shell_turn, tree_state
from tests.ui.conftest import screen_shown
from tests.ui.conftest import wait_for as wait_briefly
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.screens.rewind import ResumePicker, RewindPicker, RewindPreview
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.messages import UserMessage


async def _two_prompts(root: Path, fake_model: Any, session: Any) -> dict[str, Any]:
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("first: make one")
    state = tree_state(root)
    fake_model.script(*shell_turn(bash("printf 'more\\n' >> one.txt && echo 2 > two.txt && "
                                       "chmod +x app.py")))
    await session.submit("second: change things")
    return state  # type: ignore[return-value]


async def wait_for(pilot: Any, until: Any) -> Any:
    """Each step runs git in the shadow repository: slow on a loaded machine."""
    return await wait_briefly(pilot, until, timeout=60)


def _users(app: ValarMindApp) -> list[str]:
    return [w.text for w in app.query_one(ChatView).query(UserMessage)]


async def test_rewind_picker_preview_asks_about_a_hand_edit_then_overwrites(
    git_repo: Path, fake_model: Any, open_session: Any, tmp_path: Path,
) -> None:
    session = open_session(git_repo)
    after_first = await _two_prompts(git_repo, fake_model, session)
    (git_repo / "two.txt").write_text("edited by hand\n")
    state = tree_state(git_repo)
    app = ValarMindApp(session, history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(_users(app)) == 2)
        await pilot.press(*"/rewind", "enter")
        picker = await screen_shown(pilot, app, RewindPicker, timeout=60)
        labels = [str(o.prompt) for o in picker.query_one("#points").options]
        assert "second: change things" in labels[0] and "first: make one" in labels[1]
        await pilot.press("enter", "b")  # the newest message, then both
        preview = await screen_shown(pilot, app, RewindPreview, timeout=60)
        conflicts = str(preview.query_one("#conflicts").render())
        assert "two.txt" in conflicts
        assert tree_state(git_repo) == state  # nothing written while it asks
        await pilot.press("y")  # not an answer while there is a conflict
        assert isinstance(app.screen, RewindPreview)
        await pilot.press("o")
        await wait_for(pilot, lambda: app.query(CommandOutput))
        assert tree_state(git_repo) == after_first
        await wait_for(pilot, lambda: _users(app) == ["first: make one"])
    reopened = open_session(git_repo, resume=session.session_id)
    assert [m["content"] for m in reopened.history if m["role"] == "user"] == [
        "first: make one"]


async def test_cancelling_the_preview_writes_nothing(
    git_repo: Path, fake_model: Any, open_session: Any, tmp_path: Path,
) -> None:
    session = open_session(git_repo)
    await _two_prompts(git_repo, fake_model, session)
    state, history = tree_state(git_repo), list(session.history)
    app = ValarMindApp(session, history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/rewind", "enter")
        await screen_shown(pilot, app, RewindPicker, timeout=60)
        await pilot.press("down", "enter", "f")  # the first message, files only
        preview = await screen_shown(pilot, app, RewindPreview, timeout=60)
        shown = " ".join(str(s.render()) for s in preview.query("Static"))
        assert "Removes: one.txt, two.txt" in shown and "Restores: app.py" in shown
        assert not preview.query("#conflicts") and "conversation" not in shown
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindPreview))
    assert tree_state(git_repo) == state and session.history == history


async def test_resume_picker_switches_the_session(
    git_repo: Path, fake_model: Any, open_session: Any, tmp_path: Path,
) -> None:
    older = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await older.submit("the older session")
    assert older.store is not None
    older.store.close()
    newer = open_session(git_repo)
    fake_model.script({"text": "Hello."})
    await newer.submit("the newer one")
    app = ValarMindApp(newer, history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"/resume", "enter")
        picker = await screen_shown(pilot, app, ResumePicker, timeout=60)
        labels = [str(o.prompt) for o in picker.query_one("#sessions").options]
        assert "the newer one" in labels[0] and "(this one)" in labels[0]
        assert "the older session" in labels[1] and "1 files" in labels[1]
        assert "openai/fake-model" in labels[1] and "$" in labels[1]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.live.session_id == older.session_id)
        await wait_for(pilot, lambda: _users(app) == ["the older session"])
        fake_model.script({"text": "Back again."})
        await pilot.press(*"and now", "enter")
        await wait_for(pilot, lambda: not app.working and len(_users(app)) == 2)
    sent = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["the older session", "and now"]


async def test_a_typed_conversation_rewind_redraws_the_chat(
    git_repo: Path, fake_model: Any, open_session: Any, tmp_path: Path,
) -> None:
    session = open_session(git_repo)
    await _two_prompts(git_repo, fake_model, session)
    state = tree_state(git_repo)
    app = ValarMindApp(session, history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(_users(app)) == 2)
        await pilot.press(*"/rewind --prompt 2 conversation", "enter")
        await wait_for(pilot, lambda: _users(app) == ["first: make one"])
        said = await wait_for(pilot, lambda: [c.text for c in app.query(CommandOutput)])
        assert "Rewound to before message 2" in said[-1]
    assert tree_state(git_repo) == state
