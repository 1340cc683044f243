"""`# note` in the TUI (issue #35): the note and the three files are shown; only the person's
choice saves it, and Esc saves nothing."""

from __future__ import annotations

from typing import Any

from tests.ui.conftest import screen_shown, wait_for
from valarmind_tui.faces.tui.screens.memory import MemoryPlacePicker
from valarmind_tui.faces.tui.widgets.answer import CommandOutput


async def test_a_note_is_saved_where_the_person_picks(make_session, make_app, fake_model,
                                                       git_repo) -> None:  # noqa: ANN001
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"# run make lint before committing", "enter")
        picker = await screen_shown(pilot, app, MemoryPlacePicker)
        shown = " ".join(str(s.render()) for s in picker.query("Static"))
        assert "run make lint before committing" in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, MemoryPlacePicker))
        assert not (git_repo / "VALARMIND.md").exists()

        await pilot.press(*"# run make lint before committing", "enter")
        await screen_shown(pilot, app, MemoryPlacePicker)
        await pilot.press("enter")  # the first place: the project's VALARMIND.md
        output: Any = await wait_for(pilot, lambda: list(app.query(CommandOutput)))
        assert "Saved to `VALARMIND.md`" in output[-1].text
    assert (git_repo / "VALARMIND.md").read_text() == (
        "## Notes\n\n- run make lint before committing\n")
    assert not fake_model.requests  # no model turn for a note
