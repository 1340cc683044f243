"""A resumed session draws its stored conversation again (Pilot, real SQLite store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.messages import NoticeLine, UserMessage
from valarmind_tui.faces.tui.widgets.sidebar import AgentMonitor, TaskPanel
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import open_session
from valarmind_tui.settings.config import Settings


def _open(root: Path, fake_model: Any, resume: str | None = None) -> Session:
    settings = Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY")
    return open_session(settings, root, resume=resume)


def _shown(widget: Widget) -> tuple[str, str]:
    """(kind, what the person reads) for one widget of the chat."""
    if isinstance(widget, UserMessage):
        return "user", widget.text
    if isinstance(widget, AssistantMessage):
        return "answer", f"{widget.status}: {widget.answer.plain_text.strip()}"
    if isinstance(widget, ToolCallBlock):
        return "tool", f"{widget.tool_name} {widget.arguments.get('path')} {widget.state}"
    if isinstance(widget, NoticeLine):
        return "notice", str(widget.render())
    return type(widget).__name__, ""


async def test_resumed_session_shows_its_conversation(
    git_repo: Path, fake_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    fake_model.script(
        ScriptedTurn(text="Let me look.", tool_calls=[
            {"name": "read_file", "arguments": {"path": "app.py"}},
            {"name": "read_file", "arguments": {"path": "missing.py"}},
        ]),
        ScriptedTurn(text="It greets **by name**."),
    )
    first = ValarMindApp(_open(git_repo, fake_model), history_file=tmp_path / "history.jsonl")
    async with first.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"what does app.py do?", "enter")
        await wait_for(pilot, lambda: not first.turn_running
                       and any(m.status for m in first.query(AssistantMessage)))
        session_id = first.live.session_id

    again = ValarMindApp(_open(git_repo, fake_model, resume="last"),
                         history_file=tmp_path / "history.jsonl")
    async with again.run_test(size=(120, 40)) as pilot:
        chat = again.query_one(ChatView)
        await wait_for(pilot, lambda: chat.query(NoticeLine))
        shown = [_shown(w) for w in chat.items]
    assert shown == [
        ("user", "what does app.py do?"),
        ("answer", "done: Let me look."),
        ("tool", "read_file app.py done"),
        ("tool", "read_file missing.py failed"),
        ("answer", "done: It greets by name."),
        ("notice", f"Resumed session {session_id} · 5 messages"),
    ]


async def test_resume_leaves_none_of_the_old_sessions_tasks_agents_or_cost(
    git_repo: Path, fake_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    older = _open(git_repo, fake_model)
    fake_model.script(ScriptedTurn(text="Hello."))
    await older.submit("the older session")
    await older.close()
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "task_create", "arguments": {"title": "Find callers"}}],
                     usage={"prompt_tokens": 900, "completion_tokens": 30}),
        ScriptedTurn(text="Planned."),
    )
    app = ValarMindApp(_open(git_repo, fake_model), history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(140, 40)) as pilot:
        tasks, monitor = app.query_one(TaskPanel), app.query_one(AgentMonitor)
        status = app.query_one(StatusBar)
        await pilot.press(*"plan it", "enter")
        await wait_for(pilot, lambda: not app.turn_running and [t.title for t in tasks.tasks]
                       == ["Find callers"])
        assert monitor.rows and status.tokens >= 930

        await pilot.press(*f"/resume {older.session_id}", "enter")
        await wait_for(pilot, lambda: app.live.session_id == older.session_id
                       and app.query_one(ChatView).query(NoticeLine))
        await pilot.pause()
        assert tasks.tasks == () and _lines(tasks) == ["No tasks yet."]
        assert monitor.rows == {} and _lines(monitor) == ["No agents running."]
        assert status.tokens == 0 and status.cost == 0

        # the resumed session's own tasks show, alone
        fake_model.script(
            ScriptedTurn(tool_calls=[{"name": "task_create", "arguments": {"title": "Again"}}]),
            ScriptedTurn(text="Planned again."))
        await pilot.press(*"and now", "enter")
        await wait_for(pilot, lambda: not app.turn_running and tasks.tasks)
        assert [t.title for t in tasks.tasks] == ["Again"]
        assert list(monitor.rows) == ["main"]


def _lines(widget: Widget) -> list[str]:
    """What the widget shows, line by line, at the size the layout gave it."""
    return [s.text.strip() for s in widget.render_lines(widget.size.region) if s.text.strip()]
