"""The plain REPL's /rewind and /resume pickers: numbered lists and questions read from the
input, over a real stored session."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import bash, shell_turn, tree_state
from valarmind_tui.faces.repl.plain import PipeReader, Repl


async def _run(session: Any, lines: str) -> str:
    out = io.StringIO()
    code = await asyncio.wait_for(Repl(session, PipeReader(io.StringIO(lines), out), out).run(),
                                  60)
    assert code == 0
    return out.getvalue()


async def test_rewind_picker_asks_about_a_hand_edit_and_keeps_it(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("first: make one")
    before = tree_state(git_repo)
    fake_model.script(*shell_turn(bash("echo 2 > two.txt && printf 'y\\n' >> one.txt")))
    await session.submit("second: more")
    (git_repo / "two.txt").write_text("mine\n")

    shown = await _run(session, "/rewind\n2\nb\nk\n/quit\n")
    assert "  1  " in shown and "first: make one" in shown and "second: more" in shown
    assert "Would cut" in shown and "two.txt" in shown and "[o]verwrite" in shown
    assert "Rewound to before message 2" in shown
    assert (git_repo / "two.txt").read_text() == "mine\n"
    assert {k: v for k, v in tree_state(git_repo).items() if k != "two.txt"} == before
    users = [m["content"] for m in session.history if m["role"] == "user"]
    assert users == ["first: make one"]


async def test_rewind_picker_cancel_writes_nothing(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("first")
    state, history = tree_state(git_repo), list(session.history)
    shown = await _run(session, "/rewind\n1\nf\nn\n/quit\n")
    assert "Would remove: one.txt" in shown
    assert "Cancelled: nothing written." in shown
    assert tree_state(git_repo) == state and session.history == history


async def test_resume_picker_switches_to_another_session(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    older = open_session(git_repo)
    fake_model.script({"text": "Old answer."})
    await older.submit("the older session")
    newer = open_session(git_repo)
    fake_model.script({"text": "New answer."})
    await newer.submit("the newer one")
    fake_model.script({"text": "Continued."})
    shown = await _run(newer, "/resume\n2\nand now\n/quit\n")
    assert "the newer one" in shown and "(this one)" in shown
    assert f"Resumed session {older.session_id}" in shown
    sent = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["the older session", "and now"]
