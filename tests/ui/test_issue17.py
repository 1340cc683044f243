"""Regressions from issue #17: the sidebar's task list, the delegate preview, one turn at a time."""

from __future__ import annotations

from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import screen_shown, wait_for
from tests.ui.scripts import edit_through_code_agent
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage, CommandOutput
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.faces.tui.widgets.prompt import PromptInput
from valarmind_tui.faces.tui.widgets.sidebar import TaskPanel
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock
from valarmind_tui.safety.gate.approval import PermissionMode

SLOW = ScriptedTurn(text="word " * 400, chunk_size=5, chunk_delay_s=0.05)
"""About 20 s of answer: every test cancels it."""


async def _send(pilot: Any, text: str) -> None:
    await pilot.press(*text, "enter")


def _answer(app: ValarMindApp) -> AssistantMessage | None:
    done = [m for m in app.query(AssistantMessage) if m.status is not None]
    return done[-1] if done else None


async def _paste(pilot: Any, line: str) -> None:
    """Put `line` in the prompt and send it: no key-by-key typing (which waits for the app
    between keys, long enough for a streamed answer to end) and no completion list."""
    pilot.app.query_one(PromptInput).load_text(line)
    await pilot.press("enter")


def _kept(app: ValarMindApp, text: str) -> bool:
    return app.query_one(PromptInput).text == text


def _streaming(app: ValarMindApp) -> bool:
    return any(m.text for m in app.query(AssistantMessage))


def _outputs(app: ValarMindApp) -> list[CommandOutput]:
    return list(app.query(CommandOutput))


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
        task_list = app.query_one(TaskPanel)
        await wait_for(pilot, lambda: len(task_list.tasks) == 2)
        await pilot.pause()
        # Both rows on screen: the widget grew to two lines (it stayed one line tall).
        assert task_list.size.height == 2
        shown = _rows_on_screen(task_list)
        assert any("Find callers" in line for line in shown)
        assert any("Edit greet" in line for line in shown)


def _rows_on_screen(task_list: TaskPanel) -> list[str]:
    """The task list's lines as drawn, at the size the layout gave it."""
    return [strip.text for strip in task_list.render_lines(task_list.size.region)]


async def test_delegate_block_previews_the_specialist_summary(
    make_session, make_app, fake_model
) -> None:
    fake_model.script(*edit_through_code_agent("Changed it."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "use Hi")
        await screen_shown(pilot, app, ApprovalScreen)
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


async def test_a_second_prompt_mid_turn_steers_and_is_given_back_when_cancelled(
    make_session, make_app, fake_model
) -> None:
    """Issue 35 turned issue 17's refusal into steering: the message is queued for the agent's
    next step; cancelled before it, the message comes back to the prompt, never lost."""
    from valarmind_tui.faces.tui.widgets.steering import SteeringMessage

    fake_model.script(SLOW)
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "talk a lot")
        await wait_for(pilot, lambda: _streaming(app))
        await _paste(pilot, "another")
        queued = await wait_for(pilot, lambda: list(app.query(SteeringMessage)))
        assert queued[0].state == "queued" and not _kept(app, "another")
        assert len(fake_model.requests) == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: _answer(app))
        await wait_for(pilot, lambda: _kept(app, "another"))
        assert queued[0].state == "dropped"


async def test_session_refuses_a_second_prompt_while_one_runs(make_session, fake_model) -> None:
    import asyncio

    from valarmind_tui.core.events import Notice

    fake_model.script(SLOW)
    session = make_session()
    notices: list[str] = []
    session.bus.add_listener(lambda e: notices.append(e.message) if isinstance(e, Notice) else 0)
    first = asyncio.create_task(session.submit("talk a lot"))
    while not fake_model.requests:
        await asyncio.sleep(0.01)
    second = await session.submit("another")
    assert second.status == "failed" and "Esc" in second.text
    assert notices and "Esc" in notices[-1]
    assert session.busy  # the first one still runs
    session.cancel()
    assert (await first).status == "cancelled"
    assert len(fake_model.requests) == 1


async def test_clear_and_compact_are_refused_mid_turn_safe_commands_run(
    make_session, make_app, fake_model
) -> None:
    fake_model.script(ScriptedTurn(text="Earlier answer."), SLOW)
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "first")
        await wait_for(pilot, lambda: _answer(app))
        await _send(pilot, "talk a lot")
        await wait_for(pilot, lambda: session.busy and _streaming(app) and len(
            [m for m in app.query(AssistantMessage) if m.text]) == 2)
        for line in ("/clear", "/compact"):
            await _paste(pilot, line)
            output = await wait_for(pilot, lambda line=line: [
                o for o in _outputs(app) if o.line == line])
            assert output[0].has_class("-error")
            assert "wait for the answer or press Esc" in output[0].text
        await _paste(pilot, "/cost")
        cost = await wait_for(pilot, lambda: [o for o in _outputs(app) if o.line == "/cost"])
        assert not cost[0].has_class("-error") and "Tokens:" in cost[0].text
        assert len(app.query(AssistantMessage)) == 2  # the chat was not cleared
        await pilot.press("escape")
        await wait_for(pilot, lambda: not session.busy)
    assert any(m.get("content") == "first" for m in session.history)


async def test_escape_cancels_a_turn_started_by_plan(make_session, make_app, fake_model) -> None:
    fake_model.script(SLOW)
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await _paste(pilot, "/plan how to split app.py")
        await wait_for(pilot, lambda: _streaming(app))
        assert session.mode == PermissionMode.PLAN
        assert app.query_one(StatusBar).busy
        await _paste(pilot, "another")  # queued for the turn's next step, like a prompt's
        await pilot.press("escape")
        message = await wait_for(pilot, lambda: _answer(app), timeout=5)
        assert message.status == "cancelled"
        await wait_for(pilot, lambda: _kept(app, "another"))  # given back, not delivered
        await wait_for(pilot, lambda: not session.busy and not app.query_one(StatusBar).busy)
    assert len(fake_model.requests) == 1


async def test_prompts_typed_while_starting_send_one_and_keep_the_next(
    make_session, tmp_path, fake_model
) -> None:
    import threading

    fake_model.script(ScriptedTurn(text="One."))
    ready = threading.Event()

    def factory():  # noqa: ANN202
        ready.wait(10)
        return make_session()

    app = ValarMindApp(session_factory=factory, project_root=tmp_path,
                       history_file=tmp_path / "h.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "one")
        await _send(pilot, "two")
        await wait_for(pilot, lambda: _kept(app, "two"))
        assert any("already waiting" in n.message for n in app._notifications)
        ready.set()
        # Run alone, this test pays the cold litellm import (about 20 s on two busy cores).
        message = await wait_for(pilot, lambda: _answer(app), timeout=60)
        assert message.status == "done"
        notices = [str(n.render()) for n in app.query(NoticeLine)]
        assert not any("still working" in n for n in notices)
    users = [m["content"] for m in fake_model.requests[0]["messages"] if m["role"] == "user"]
    assert users[-1] == "one" and len(fake_model.requests) == 1
