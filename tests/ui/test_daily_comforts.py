"""The TUI's side of the daily comforts, through Pilot: a message typed while the agent works is
shown queued then delivered and reaches the next request; a fallback model is named in the
status bar and the chat; the person's status line replaces the spend and the branch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import screen_shown, wait_for
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.messages import NoticeLine
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.faces.tui.widgets.steering import SteeringMessage


async def _send(pilot: Any, text: str) -> None:
    await pilot.press(*text, "enter")


def _bar(app: Any) -> str:
    return str(app.query_one(StatusBar).render())


async def test_typing_while_the_agent_works_steers_its_next_step(
    make_session: Any, make_app: Any, fake_model: Any
) -> None:
    fake_model.script(
        ScriptedTurn(text="Looking. " * 40, chunk_delay_s=0.1,
                     tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="Done, briefly."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "explain app.py")
        await wait_for(pilot, lambda: len(fake_model.requests) == 1)
        await _send(pilot, "be brief")
        shown = await wait_for(pilot, lambda: list(app.query(SteeringMessage)))
        await wait_for(pilot, lambda: shown[0].state == "delivered", timeout=20)
        assert "delivered" in str(shown[0].render())
        await wait_for(pilot, lambda: not app.working, timeout=20)
    assert len(fake_model.requests) == 2
    assert fake_model.requests[1]["messages"][-1] == {"role": "user", "content": "be brief"}


async def test_a_fallback_model_is_named_on_screen(
    make_session: Any, make_app: Any, fake_model: Any
) -> None:
    fake_model.script(ScriptedTurn(status=529, headers={"x-should-retry": "false"},
                                   error="Overloaded"),
                      ScriptedTurn(text="from the backup"))
    app = make_app(make_session(fallback_models=["openai/fake-backup"]))
    async with app.run_test(size=(140, 40)) as pilot:
        await _send(pilot, "hello")
        await wait_for(pilot, lambda: "openai/fake-backup (fallback)" in _bar(app), timeout=20)
        notices = " ".join(str(n.render()) for n in app.query(NoticeLine))
        assert "openai/fake-model failed" in notices and "openai/fake-backup answers" in notices


async def test_the_persons_status_line_replaces_the_right_part(
    make_session: Any, make_app: Any, fake_model: Any, tmp_path: Path
) -> None:
    script = tmp_path / "line.py"
    script.write_text("import json, sys\nstate = json.load(sys.stdin)\n"
                      "print(f\"mine: {state['mode']} {state['tokens']['total']}t "
                      "{state['cwd'].rsplit('/', 1)[-1]}\\x1b[31m\")\nprint('second line')\n")
    fake_model.script(ScriptedTurn(text="hi", usage={"prompt_tokens": 30,
                                                      "completion_tokens": 12}))
    app = make_app(make_session(status_line=f"python3 {script}"))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: "mine: default 0t repo" in _bar(app), timeout=10)
        assert "second line" not in _bar(app) and "\x1b" not in _bar(app)
        assert "␛[31m" in _bar(app)  # made visible, never emitted
        assert "tok ·" not in _bar(app)  # the built-in spend gave way
        await _send(pilot, "hello")
        await wait_for(pilot, lambda: "mine: default 42t repo" in _bar(app), timeout=10)


async def test_a_failing_status_line_falls_back_with_one_notice(
    make_session: Any, make_app: Any, fake_model: Any
) -> None:
    app = make_app(make_session(status_line="exit 3"))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app._notifications, timeout=10)
        said = [n.message for n in app._notifications]
        assert any("status_line failed (exit status 3)" in m for m in said)
        assert "tok ·" in _bar(app)


async def test_btw_in_the_tui_answers_aside(
    make_session: Any, make_app: Any, fake_model: Any
) -> None:
    fake_model.script(ScriptedTurn(text="first"), ScriptedTurn(text="the aside"))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "hello")
        await wait_for(pilot, lambda: len(fake_model.requests) == 1 and not app.working)
        await _send(pilot, "/btw what was that")
        out = await wait_for(pilot, lambda: list(app.query(CommandOutput)), timeout=20)
        assert out[-1].text == "the aside" and out[-1].line == "/btw what was that"
        history = [m.get("content") for m in app.live.history]
    assert history[1:] == ["hello", "first"]  # the aside is not in the conversation


async def test_an_approval_rings_only_while_the_terminal_is_not_focused(
    make_session: Any, tmp_path: Path, fake_model: Any
) -> None:
    from textual import events

    from tests.ui.scripts import edit_through_code_agent
    from valarmind_tui.faces.tui import app as app_module
    from valarmind_tui.faces.tui.app import ValarMindApp
    from valarmind_tui.faces.tui.screens.approval import ApprovalScreen

    written: list[str] = []

    class Recording(ValarMindApp):
        CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")

        def _write_terminal(self, data: str) -> None:
            written.append(data)

    fake_model.script(*edit_through_code_agent("Left it."), *edit_through_code_agent("Again."))
    app = Recording(make_session(), history_file=tmp_path / "h.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        app.post_message(events.AppFocus())  # the terminal said it has the focus (mode 1004)
        await pilot.pause()
        await _send(pilot, "edit app.py")
        await screen_shown(pilot, app, ApprovalScreen, timeout=20)
        assert written == []  # focused: nobody needs calling back
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.working, timeout=20)
        app.post_message(events.AppBlur())
        await pilot.pause()
        await _send(pilot, "edit app.py again")
        await screen_shown(pilot, app, ApprovalScreen, timeout=20)
        assert written == ["\a"]
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.working, timeout=20)


async def test_a_model_without_a_known_price_shows_an_unknown_cost_not_zero(
    make_session: Any, make_app: Any, fake_model: Any
) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 200}
    fake_model.script(ScriptedTurn(text="one", usage=usage), ScriptedTurn(text="two", usage=usage))
    unpriced = make_app(make_session())  # openai/fake-model is in no price list
    async with unpriced.run_test(size=(140, 40)) as pilot:
        await _send(pilot, "hello")
        await wait_for(pilot, lambda: "1,200 tok" in _bar(unpriced), timeout=20)
        assert "1,200 tok · $?" in _bar(unpriced) and "$0.0000" not in _bar(unpriced)
    priced = make_app(make_session(model="openai/gpt-4o-mini"))
    async with priced.run_test(size=(140, 40)) as pilot:
        await _send(pilot, "hello")
        await wait_for(pilot, lambda: "1,200 tok" in _bar(priced), timeout=20)
        assert "$?" not in _bar(priced) and "+?" not in _bar(priced)
        assert "1,200 tok · $0.0003" in _bar(priced)  # 1000 x $0.15/M + 200 x $0.60/M
