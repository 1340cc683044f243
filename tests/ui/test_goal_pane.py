"""/goal in the TUI: the rounds and each check's last verdict in the task pane, and the
answer's footer saying which checks passed on the final tree (a real Session, the model played
by the fake server, the check a real command)."""

from __future__ import annotations

from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from tests.ui.scripts import CHANGED, edit_through_code_agent
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.goal_panel import GoalPanel
from valarmind_tui.faces.tui.widgets.prompt import PromptInput

CHECK = "grep -q Hi app.py"


async def test_goal_rounds_and_checks_show_in_the_task_pane(
        make_session: Any, make_app: Any, fake_model: Any, git_repo: Any) -> None:
    fake_model.script(ScriptedTurn(text="It already says Hi."),  # round 1: a claim only
                      *edit_through_code_agent("Now it says Hi."))  # round 2: the change
    app = make_app(make_session(permission_mode="accept-edits"))
    async with app.run_test(size=(130, 45)) as pilot:
        panel = app.query_one(GoalPanel)
        assert not panel.display  # no goal yet: the pane shows only the tasks
        shown: list[str] = []  # every state the pane drew (a fast goal passes round 1 quickly)
        app.watch(panel, "goal", lambda goal: shown.append(str(panel.render())), init=False)
        app.query_one(PromptInput).load_text(f'/goal --check "{CHECK}" greet with Hi')
        await pilot.press("enter")
        await wait_for(pilot, lambda: panel.goal is not None and panel.goal.round >= 1,
                       timeout=60)
        assert panel.display
        one = next(text for text in shown if "round 1 ·" in text)
        assert "greet with Hi" in one and "round 1 · running" in one
        assert f"✗ {CHECK}  r1 exit 1" in one
        output = await wait_for(pilot, lambda: list(app.query(CommandOutput)), timeout=60)
        text = output[-1].text
        assert "Now it says Hi." in text
        assert "Goal done after 2 round(s)" in text
        assert f"`{CHECK}`: passed on the final tree" in text
        await wait_for(pilot, lambda: panel.goal is not None and panel.goal.status == "done")
        final = str(panel.render())
        assert "round 2 · done" in final and f"✓ {CHECK}  r2" in final
    assert (git_repo / "app.py").read_text() == CHANGED
