"""Regressions from issue #17: the sidebar's task list, the delegate preview, one turn at a time."""

from __future__ import annotations

from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.ui.app import ValarMindApp
from valarmind_tui.ui.widgets.answer import AssistantMessage
from valarmind_tui.ui.widgets.sidebar import TaskList


async def _send(pilot: Any, text: str) -> None:
    await pilot.press(*text, "enter")


def _answer(app: ValarMindApp) -> AssistantMessage | None:
    done = [m for m in app.query(AssistantMessage) if m.status is not None]
    return done[-1] if done else None


async def test_two_task_creates_in_one_turn_both_show_in_the_sidebar(
    make_session, make_app, fake_model
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[
            {"name": "task_create", "arguments": {"title": "Find callers"}},
            {"name": "task_create", "arguments": {"title": "Edit greet"}},
        ]),
        ScriptedTurn(text="Planned."),
    )
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(140, 40)) as pilot:
        await _send(pilot, "plan it")
        await wait_for(pilot, lambda: _answer(app))
        assert [t.title for t in session.tasks.items()] == ["Find callers", "Edit greet"]
        task_list = app.query_one(TaskList)
        await wait_for(pilot, lambda: len(task_list.tasks) == 2)
        await pilot.pause()
        # Both rows on screen: the widget grew to two lines (it stayed one line tall).
        assert task_list.size.height == 2
        shown = _rows_on_screen(task_list)
        assert any("Find callers" in line for line in shown)
        assert any("Edit greet" in line for line in shown)


def _rows_on_screen(task_list: TaskList) -> list[str]:
    """The task list's lines as drawn, at the size the layout gave it."""
    return [strip.text for strip in task_list.render_lines(task_list.size.region)]
