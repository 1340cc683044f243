"""A question from a specialist says which agent asks (several run at once); the main agent's
and the person's own commands' do not."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.ui.conftest import screen_shown, wait_for
from valarmind_tui.core.events import ApprovalRequested
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen


def _request(agent: str) -> ApprovalRequested:
    return ApprovalRequested(agent_id=agent, request_id=f"r-{agent}", tool="bash",
                             summary="Run: make test", command="make test")


async def test_the_dialog_names_the_specialist_that_asks(make_session: Any, make_app: Any) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(ApprovalScreen(_request("review-2")))
        screen = await screen_shown(pilot, app, ApprovalScreen)
        assert str(screen.query_one("#asker", Static).render()) == "asked by the review-2 agent"
        screen.dismiss(None)
        app.push_screen(ApprovalScreen(_request("main")))
        screen = await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen)
                                and app.screen.request.agent_id == "main"
                                and app.screen.is_mounted and app.screen)
        assert not screen.query("#asker")
