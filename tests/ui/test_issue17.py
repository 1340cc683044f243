"""Regressions from issue #17: the sidebar's task list, the delegate preview, one turn at a time."""

from __future__ import annotations

from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from tests.ui.scripts import edit_through_code_agent
from valarmind_tui.ui.app import ValarMindApp
from valarmind_tui.ui.screens.approval import ApprovalScreen
from valarmind_tui.ui.widgets.answer import AssistantMessage
from valarmind_tui.ui.widgets.sidebar import TaskList
from valarmind_tui.ui.widgets.tool_call import ToolCallBlock


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


async def test_delegate_block_previews_the_specialist_summary(
    make_session, make_app, fake_model
) -> None:
    fake_model.script(*edit_through_code_agent("Changed it."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "use Hi")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: _answer(app))
        block = next(b for b in app.query(ToolCallBlock) if b.tool_name == "delegate")
        assert block.output and block.output.startswith("{")
        assert block.result_title == "Asked to edit app.py."
        assert "▶ Asked to edit app.py." in str(block.render())


def test_result_title_reads_json_summaries_and_skips_bare_brackets() -> None:
    block = ToolCallBlock("c", "delegate", {})
    block.output = '{\n "agent": "search",\n "status": "done",\n "result": {"summary": "Found 3."}}'
    assert block.result_title == "Found 3."
    block.output = (
        '{"agent": "search", "status": "done", "result": {"summary": "Found 3."}}\n\n'
        '{"agent": "review", "status": "done", "result": {"summary": "No issues."}}'
    )
    assert block.result_title == "search: Found 3. · review: No issues."
    block.output = '{\n "agent": "code",\n "valid": false,\n "problem": "no JSON",\n "raw": "x"}'
    assert block.result_title == "no JSON"
    block.output = '{\n "agent": "code",\n "result": {\n  "summary": "Cut short'  # truncated
    assert block.result_title == "Cut short"
    block.output = "[\n {\n  plain text after brackets\n"
    assert block.result_title == "plain text after brackets"
    block.output = "Created t1.\n0/1 completed"
    assert block.result_title == "Created t1."
