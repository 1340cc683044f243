"""/style in the TUI (issue #35): the status bar names the style, the main agent's prompt follows
it, the specialists' prompts do not."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.status import StatusBar

PIRATE = "---\nname: pirate\ndescription: talks like a pirate\n---\nAnswer as a pirate would.\n"


async def test_style_changes_the_main_agents_prompt_and_the_status_bar(
        make_session, make_app, fake_model) -> None:  # noqa: ANN001
    styles = Path(os.environ["HOME"]) / ".config" / "valarmind" / "styles"
    styles.mkdir(parents=True, exist_ok=True)
    (styles / "pirate.md").write_text(PIRATE)
    fake_model.script(ScriptedTurn(text="Arr."))
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press(*"/style pirate", "enter")
        await wait_for(pilot, lambda: app.query_one(StatusBar).style == "pirate")
        assert "pirate" in str(app.query_one(StatusBar).render())
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: fake_model.requests)
        await pilot.press(*"/style default", "enter")
        await wait_for(pilot, lambda: app.query_one(StatusBar).style is None)
        outputs: Any = app.query(CommandOutput)
        assert "default (none)" in outputs[-1].text
    system = fake_model.requests[0]["messages"][0]["content"]
    assert "Output style (pirate)" in str(system) and "Answer as a pirate would." in str(system)
    code = session.system_prompt(session.agents.get("code"))
    assert "Answer as a pirate would." not in code  # specialists keep their formats
