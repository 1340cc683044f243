"""The plain REPL: the same Session, commands and approvals, in line mode."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.ui.scripts import CHANGED, ORIGINAL, edit_through_code_agent, tool_messages
from valarmind_tui.faces.repl.plain import PipeReader, PromptToolkitReader, Repl
from valarmind_tui.safety.gate.approval import PermissionMode
from valarmind_tui.session.wiring import build_session, open_session
from valarmind_tui.settings.config import Settings


def _configure(repo: Path, fake_model: Any) -> None:
    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')


def test_plain_with_piped_stdin_streams_and_approves(git_repo: Path, fake_model: Any) -> None:
    _configure(git_repo, fake_model)
    fake_model.script(*edit_through_code_agent("Changed it to Hi."))
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
        input="please use Hi\ny\n/cost\n/quit\n", capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAKE_API_KEY": "sk-test"},
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Allow edit_file?" in text and "+    return 'Hi ' + name" in text
    assert "Changed it to Hi." in text and "Tokens:" in text
    assert (git_repo / "app.py").read_text() == CHANGED


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "the REPL did not get there in time"
        await asyncio.sleep(0.02)


async def test_prompt_toolkit_feedback_denial_and_mode(
    git_repo: Path, fake_model: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    fake_model.script(*edit_through_code_agent("Kept Hello."))
    settings = Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY")
    session = build_session(settings, git_repo)
    out = io.StringIO()
    with create_pipe_input() as pipe:
        reader = PromptToolkitReader(session, input=pipe, output=DummyOutput())
        repl = asyncio.create_task(Repl(session, reader, out).run())
        pipe.send_text("use Hi\r")
        await _until(lambda: "Allow edit_file?" in out.getvalue())
        pipe.send_text("f\r")
        await asyncio.sleep(0.1)
        pipe.send_text("keep Hello\r")
        await _until(lambda: "Kept Hello." in out.getvalue())
        pipe.send_text("\x1b[Z")  # Shift+Tab
        await _until(lambda: session.mode == PermissionMode.ACCEPT_EDITS, 5)
        pipe.send_text("/quit\r")
        assert await asyncio.wait_for(repl, 10) == 0
    assert "denied" in out.getvalue()
    assert (git_repo / "app.py").read_text() == ORIGINAL
    assert "keep Hello" in tool_messages(fake_model.requests[2])[-1]


async def test_resumed_session_reprints_its_last_exchange(
    git_repo: Path, fake_model: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="It greets by name."),
    )
    first = open_session(settings, git_repo)
    await first.submit("what does app.py do?")
    await first.close()

    again = open_session(settings, git_repo, resume="last")
    out = io.StringIO()
    code = await asyncio.wait_for(Repl(again, PipeReader(io.StringIO("/quit\n"), out), out).run(),
                                  10)
    assert code == 0
    shown = out.getvalue().splitlines()
    start = shown.index("> what does app.py do?")
    assert shown[start + 1:start + 4] == [
        "⏺ read_file path='app.py' · done",
        "It greets by name.",
        f"Resumed session {first.session_id} · 4 messages",
    ]
    assert shown[start + 4].startswith("model: openai/fake-model")


async def test_commit_message_is_edited_in_the_repl(
    git_repo: Path, fake_model: Any, monkeypatch: Any
) -> None:
    from tests.agents.commit.conftest import IDENTITY, MAKE_OK, approved, git, head_subject

    for name, value in {**IDENTITY, "FAKE_API_KEY": "sk-test"}.items():
        monkeypatch.setenv(name, value)
    (git_repo / "Makefile").write_text(MAKE_OK)
    git(git_repo, "add", "Makefile")
    git(git_repo, "commit", "-qm", "make")
    (git_repo / "util.py").write_text("def farewell(name):\n    return 'Bye ' + name\n")
    git(git_repo, "add", "util.py")
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    settings = Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY")
    session = build_session(settings, git_repo)
    out = io.StringIO()
    with create_pipe_input() as pipe:
        reader = PromptToolkitReader(session, input=pipe, output=DummyOutput())
        repl = asyncio.create_task(Repl(session, reader, out).run())
        pipe.send_text("/commit\r")
        for command in ("make lint", "make test"):
            await _until(lambda c=command: f"$ {c}" in out.getvalue())
            pipe.send_text("y\r")
        await _until(lambda: "commit · confirm: passed" in out.getvalue()
                     and fake_model.pending == 0)  # the model wrote the message: the editor opens
        await asyncio.sleep(0.3)
        assert "commit · message" not in out.getvalue()  # it waits for the person
        assert head_subject(git_repo) == "make"
        pipe.send_text(" to util\x1b\r")  # typed at the end of the message, then Esc Enter
        await _until(lambda: "commit · commit: passed" in out.getvalue())
        pipe.send_text("/quit\r")
        assert await asyncio.wait_for(repl, 10) == 0
    assert head_subject(git_repo) == "feat: add farewell to util"
    assert "commit · check: passed (`make lint`, `make test`)" in out.getvalue()


async def test_vim_keys_edit_the_repl_prompt(git_repo: Path, fake_model: Any,
                                             monkeypatch: Any) -> None:
    """editor_mode = "vim": prompt-toolkit's vi mode, as the person types it (Esc, then a
    motion and an operator, then Enter from normal mode)."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    fake_model.script(ScriptedTurn(text="Fixed."))
    settings = Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY", editor_mode="vim")
    session = build_session(settings, git_repo)
    out = io.StringIO()
    with create_pipe_input() as pipe:
        reader = PromptToolkitReader(session, input=pipe, output=DummyOutput())
        repl = asyncio.create_task(Repl(session, reader, out).run())
        pipe.send_text("fix the wrold please")
        await asyncio.sleep(0.3)
        pipe.send_text("\x1b")
        await asyncio.sleep(0.8)  # longer than the wait that tells Esc from Alt+key
        pipe.send_text("0wwceworld")
        await asyncio.sleep(0.3)
        pipe.send_text("\x1b")
        await asyncio.sleep(0.8)
        pipe.send_text("\r")
        await _until(lambda: "Fixed." in out.getvalue())
        pipe.send_text("/quit\r")
        assert await asyncio.wait_for(repl, 10) == 0
    users = [m for m in fake_model.requests[0]["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == "fix the world please"
