"""Pilot tests of the whole app: a real Session, the model played by the fake server."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

from textual.widgets import OptionList, Static

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import approval_asked, screen_shown, wait_for
from tests.ui.scripts import CHANGED, ORIGINAL, edit_through_code_agent, tool_messages
from valarmind_tui.core.user_dirs import user_config_dir
from valarmind_tui.faces.tui import theme_files
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage, CommandOutput, OfflineBanner
from valarmind_tui.faces.tui.widgets.messages import ShellOutput
from valarmind_tui.faces.tui.widgets.prompt import PromptInput
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock
from valarmind_tui.safety.gate.approval import PermissionMode
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings


async def _send(pilot: Any, text: str) -> None:
    await pilot.press(*text, "enter")


def _answer(app: ValarMindApp) -> AssistantMessage | None:
    done = [m for m in app.query(AssistantMessage) if m.status is not None]
    return done[-1] if done else None


def _block(app: ValarMindApp, name: str) -> ToolCallBlock:
    return next(b for b in app.query(ToolCallBlock) if b.tool_name == name)


async def test_streamed_answer(make_session, make_app, fake_model) -> None:
    fake_model.script(ScriptedTurn(text="Hello **world**, here is a list:\n\n- a\n- b\n",
                                   reasoning="The user greets me."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "say hello")
        message = await wait_for(pilot, lambda: _answer(app))
        assert message.status == "done"
        assert message.source.startswith("Hello **world**")
        shown = message.answer.plain_text
        assert "Hello world, here is a list:" in shown and "**" not in shown
        assert message.reasoning == "The user greets me."
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.tokens > 0)
        assert status.model == "openai/fake-model" and not status.busy
    users = [m for m in fake_model.requests[0]["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == "say hello"


async def test_edit_allowed_changes_the_file(make_session, make_app, fake_model, git_repo):
    fake_model.script(*edit_through_code_agent("Changed it."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "use Hi")
        screen = await approval_asked(pilot, app)
        shown = str(screen.query_one("#diff", Static).render())
        assert "-    return 'Hello ' + name" in shown and "+    return 'Hi ' + name" in shown
        assert (git_repo / "app.py").read_text() == ORIGINAL  # nothing written before "y"
        await pilot.press("y")
        await wait_for(pilot, lambda: _answer(app))
        block = _block(app, "edit_file")
        shown = str(block.render())
        assert block.state == "done" and "+    return 'Hi ' + name" in shown
        assert "code-1 · edit_file" in shown and "path=app.py" in shown
        assert _block(app, "delegate").state == "done"
    assert (git_repo / "app.py").read_text() == CHANGED


async def test_edit_denied_with_feedback(make_session, make_app, fake_model, git_repo):
    fake_model.script(*edit_through_code_agent("Understood."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "use Hi")
        await screen_shown(pilot, app, ApprovalScreen)
        await pilot.press("f", *"keep Hello", "enter")
        await wait_for(pilot, lambda: _answer(app))
        assert _block(app, "edit_file").state == "denied"
    assert (git_repo / "app.py").read_text() == ORIGINAL
    assert any("keep Hello" in c for c in tool_messages(fake_model.requests[2]))


async def test_escape_cancels_a_slow_stream(make_session, make_app, fake_model) -> None:
    text = "word " * 400
    fake_model.script(ScriptedTurn(text=text, chunk_size=5, chunk_delay_s=0.02))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "talk a lot")
        await wait_for(pilot, lambda: any(m.text for m in app.query(AssistantMessage)))
        await pilot.press("escape")
        message = await wait_for(pilot, lambda: _answer(app), timeout=5)
        assert message.status == "cancelled"
        partial = message.source
        assert partial and len(partial) < len(text)
        assert "cancelled" in str(message.query_one(".answer-end", Static).render())
        assert not app.turn_running


async def test_slash_command_completion_and_result(make_session, make_app) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("/", "c", "o")
        options = app.query_one("#completions", OptionList)
        offered = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(o.startswith("/cost") and "tokens and cost" in o for o in offered)
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == offered[0].split()[0]
        app.query_one(PromptInput).load_text("/cost")
        await pilot.press("enter")
        output = await wait_for(pilot, lambda: list(app.query(CommandOutput)))
        assert "Tokens:" in output[-1].text


async def test_shift_tab_cycles_mode(make_session, make_app) -> None:
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.query_one(StatusBar)
        await pilot.press("shift+tab")
        assert session.mode == PermissionMode.ACCEPT_EDITS and status.mode == "accept-edits"
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: status.mode == "plan")
        assert session.mode == PermissionMode.PLAN


async def test_shell_command_asks_then_shows_output(make_session, make_app) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "!echo from-the-shell")
        screen = await approval_asked(pilot, app)
        assert "echo from-the-shell" in str(screen.query_one("#command", Static).render())
        await pilot.press("y")
        block = app.query_one(ShellOutput)
        await wait_for(pilot, lambda: block.output is not None)
        assert "from-the-shell" in block.output


async def test_at_path_attaches_the_file(make_session, make_app, fake_model) -> None:
    fake_model.script(ScriptedTurn(text="It greets."))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"explain @ap")
        options = app.query_one("#completions", OptionList)
        assert options.display
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == "explain @app.py"
        await pilot.press("enter")
        await wait_for(pilot, lambda: _answer(app))
    user = [m for m in fake_model.requests[0]["messages"] if m["role"] == "user"][-1]
    assert user["content"].startswith("explain @app.py")
    assert "return 'Hello ' + name" in user["content"]


async def test_offline_banner_and_ollama_detection(git_repo: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        session = build_session(Settings(), git_repo)
        assert session.offline
        app = ValarMindApp(session, history_file=git_repo.parent / "h")
        app.ollama_address = ("127.0.0.1", listener.getsockname()[1])
        async with app.run_test(size=(120, 40)) as pilot:
            banner = app.query_one(OfflineBanner)
            await wait_for(pilot, lambda: "Ollama is running" in banner.source)
            assert "OPENAI_API_KEY" in banner.source and "/model" in banner.source
            assert app.query_one(StatusBar).model is None
            await _send(pilot, "/help")  # deterministic commands still work
            output = await wait_for(pilot, lambda: list(app.query(CommandOutput)))
            assert "/model" in output[-1].text
    finally:
        listener.close()


async def test_theme_command_switches_and_remembers(make_session, make_app) -> None:
    broken = user_config_dir() / "themes" / "broken.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text("name: [oops\n")
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "valarmind-dark"
        assert any("broken.yaml" in n.message for n in app._notifications)
        await _send(pilot, "/theme valarmind-light")
        await wait_for(pilot, lambda: app.theme == "valarmind-light")
        await _send(pilot, "/theme nope")
        await wait_for(pilot, lambda: any("No theme 'nope'. Themes: valarmind-dark" in o.text
                                          for o in app.query(CommandOutput)))
        said = [o.text for o in app.query(CommandOutput)]
        assert "Theme: valarmind-light" in said and not any("Theme: nope" in t for t in said)
    assert theme_files.saved_theme() == "valarmind-light"
    again = make_app(make_session())
    async with again.run_test(size=(120, 40)):
        assert again.theme == "valarmind-light"


async def test_narrow_terminal_folds_sidebar(make_session, make_app) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(80, 24)) as pilot:
        sidebar = app.query_one("#sidebar")
        assert not sidebar.display
        await pilot.press("ctrl+b")
        assert sidebar.display
        await pilot.press("ctrl+b")
        assert not sidebar.display
    wide = make_app(make_session())
    async with wide.run_test(size=(80, 24)) as pilot:
        await pilot.resize_terminal(140, 40)
        await wait_for(pilot, lambda: wide.query_one("#sidebar").display)
        await asyncio.sleep(0)


async def test_the_last_words_show_when_the_model_stops_writing_not_at_a_later_frame(
        make_session, make_app, fake_model, monkeypatch) -> None:  # noqa: ANN001
    """Frames are rare here (30 s apart): the end of the answer must be drawn when the model's
    finish reason arrives, while the response is still being counted and the prompt runs."""
    from valarmind_tui.faces.tui.widgets import streaming_markdown

    monkeypatch.setattr(streaming_markdown, "FRAME_S", 30.0)
    monkeypatch.setattr(streaming_markdown, "FAST_FRAME_S", 30.0)
    fake_model.script(ScriptedTurn(text="first words, then the very last words",
                                   chunk_size=8, chunk_delay_s=0.4))
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(pilot, "talk")
        message = await wait_for(pilot, lambda: next(iter(app.query(AssistantMessage)), None))
        await wait_for(pilot, lambda: "the very last words" in message.answer.plain_text,
                       timeout=15)
        assert app.working and message.status is None  # the response is not counted yet
        await wait_for(pilot, lambda: not app.working, timeout=15)
