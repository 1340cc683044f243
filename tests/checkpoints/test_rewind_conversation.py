"""/rewind to before one of the person's messages: files, conversation or both, through a real
stored Session (SQLite, shadow repository, bash run by a specialist against the fake model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import bash, git_state, shell_turn, tree_state
from valarmind_tui.commands.result import ConversationRewound
from valarmind_tui.commands.rewind import rewind_points, rewind_session
from valarmind_tui.context.transcript import UserItem


async def _three_prompts(root: Path, fake_model: Any, session: Any) -> list[dict[str, Any]]:
    """first: creates one.txt; a question that changes nothing; third: edits, renames, chmods.
    Returns the tree state before the third prompt."""
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("first: make one")
    fake_model.script({"text": "It is a demo."})
    await session.submit("what is this?")
    state = tree_state(root)
    fake_model.script(*shell_turn(
        bash("printf 'x\\n' >> app.py && mv one.txt uno.txt && chmod +x app.py && echo t > t.txt")))
    await session.submit("third: change things")
    return state  # type: ignore[return-value]


@pytest.mark.parametrize("kind", ["git", "plain"])
async def test_both_goes_back_to_before_a_message_and_stays_after_a_restart(
    kind: str, git_repo: Path, tmp_path: Path, fake_model: Any, open_session: Any,
) -> None:
    root = git_repo if kind == "git" else tmp_path / "plain"
    if kind == "plain":
        root.mkdir()
        (root / "app.py").write_text("print('hi')\n")
    own_git = git_state(root) if kind == "git" else None
    session = open_session(root)
    before_third = await _three_prompts(root, fake_model, session)
    points = await rewind_points(session)
    assert [p.text for p in points] == ["first: make one", "what is this?",
                                        "third: change things"]
    assert points[0].turn == 1 and points[1].turn == 2 and points[2].turn == 2
    assert all(p.at for p in points)

    outcome = await rewind_session(session, points[1], "both")
    assert not outcome.needs_answer, outcome.describe()
    assert tree_state(root) == before_third
    assert [m["content"] for m in session.history if m["role"] == "user"] == ["first: make one"]
    assert session.history[-1]["role"] == "assistant"
    if own_git is not None:  # the project's own git: same HEAD, index, refs and stash
        assert {**git_state(root), "status": ""} == {**own_git, "status": ""}

    reopened = open_session(root, resume=session.session_id)
    assert reopened.history == session.history
    users = [i.text for i in reopened.transcript().items if isinstance(i, UserItem)]
    assert users == ["first: make one"]
    assert [p.text for p in await rewind_points(reopened)] == ["first: make one"]
    fake_model.script({"text": "Again."})
    await reopened.submit("next")
    sent = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["first: make one", "next"]


async def test_files_only_and_conversation_only(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    before_third = await _three_prompts(git_repo, fake_model, session)
    after = tree_state(git_repo)
    history = list(session.history)
    points = await rewind_points(session)

    talk = await rewind_session(session, points[2], "conversation")
    assert tree_state(git_repo) == after and talk.files is None
    assert talk.dropped == len(history) - len(session.history) > 0
    assert session.history == history[:len(session.history)]

    files = await rewind_session(session, (await rewind_points(session))[1], "files")
    assert tree_state(git_repo) == before_third and files.history is None
    assert len(session.history) == len(history) - talk.dropped
    assert (await session.run_command("/redo")).ok  # the files' rewind can be taken back
    assert tree_state(git_repo) == after


async def test_a_hand_edit_is_asked_about_before_anything_is_written(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    before_third = await _three_prompts(git_repo, fake_model, session)
    (git_repo / "t.txt").write_text("mine\n")
    state, history = tree_state(git_repo), list(session.history)

    asked = await session.run_command("/rewind --prompt 3 both")
    assert not asked.ok and "t.txt" in asked.text and "Nothing written" in asked.text
    assert tree_state(git_repo) == state and session.history == history
    preview = await session.run_command("/rewind --prompt 3 both --preview")
    assert "t.txt" in preview.text and "```diff" in preview.text and "-x" in preview.text
    assert tree_state(git_repo) == state

    kept = await session.run_command("/rewind --prompt 3 both --keep")
    assert kept.ok and kept.action == ConversationRewound()
    assert (git_repo / "t.txt").read_text() == "mine\n"
    assert tree_state(git_repo) == {**before_third, "t.txt": state["t.txt"]}
    assert [m["content"] for m in session.history if m["role"] == "user"] == [
        "first: make one", "what is this?"]


async def test_overwrite_after_the_question(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    before_third = await _three_prompts(git_repo, fake_model, session)
    (git_repo / "app.py").write_text("by hand\n")
    forced = await session.run_command("/rewind --prompt 3 files --force")
    assert forced.ok, forced.text
    assert tree_state(git_repo) == before_third


async def test_listing_and_bad_numbers(git_repo: Path, fake_model: Any,
                                       open_session: Any) -> None:
    session = open_session(git_repo)
    await _three_prompts(git_repo, fake_model, session)
    listed = await session.run_command("/rewind --prompt")
    assert "  2  " in listed.text and "what is this?" in listed.text
    assert listed.text.count("[files changed since]") == 3
    bad = await session.run_command("/rewind --prompt 9 both")
    assert not bad.ok and "this conversation has 3" in bad.text
