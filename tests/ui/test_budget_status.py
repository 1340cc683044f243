"""The TUI shows spent / budget in the status bar, the 80% notice once, and a run a budget
stopped as `budget` (Pilot, the fake server)."""

from __future__ import annotations

from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.settings.budget import BudgetSettings


def _read(prompt_tokens: int, completion_tokens: int) -> ScriptedTurn:
    return ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}],
                        usage={"prompt_tokens": prompt_tokens,
                               "completion_tokens": completion_tokens})


async def test_the_status_bar_shows_the_budget_and_the_stop(make_session, make_app,
                                                            fake_model: Any) -> None:
    fake_model.script(_read(20, 5), _read(20, 5), ScriptedTurn(text="never asked"))
    session = make_session(budget=BudgetSettings(session_tokens=30))
    app = make_app(session)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"read app.py", "enter")
        answer = await wait_for(pilot, lambda: [m for m in app.query(AssistantMessage)
                                                if m.status is not None])
        assert answer[-1].status == "budget"
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.budget == "session 50 tokens/30 tokens")
        notices = [n for n in app.query(NoticeLine) if "of the session's tokens budget" in
                   str(n.render())]
        assert len(notices) == 1 and "83%" in str(notices[0].render())
    assert len(fake_model.requests) == 2
