"""Launch paints first: the Session (settings, agents, gate...) is built after the first frame."""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.core.errors import ConfigError
from valarmind_tui.faces.tui.launch import build_app
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.prompt import PromptInput
from valarmind_tui.faces.tui.widgets.status import StatusBar
from valarmind_tui.settings.config import Settings

ARGS = argparse.Namespace(resume=None)


async def test_prompt_typed_while_starting_is_sent_once_ready(
    git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    fake_model.script(ScriptedTurn(text="Hi there."))
    release = threading.Event()

    def load() -> Settings:  # stands for slow imports and config files
        assert release.wait(10), "the test never released the settings"
        return Settings(model="openai/fake-model", api_base=fake_model.openai_base,
                        api_key_env="FAKE_API_KEY")

    app = build_app(load, git_repo, ARGS)
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.query_one(StatusBar)
        assert app.session is None and status.starting
        assert isinstance(app.focused, PromptInput)
        assert "starting…" in str(status.render()) and "main" in str(status.render())
        await pilot.press(*"say hi", "enter")
        await pilot.pause()
        assert fake_model.requests == [] and app.query_one(PromptInput).text == ""
        release.set()
        await wait_for(pilot, lambda: any(m.status == "done" for m in app.query(AssistantMessage)))
        assert not status.starting and status.model == "openai/fake-model"
    users = [m for m in fake_model.requests[0]["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == "say hi"


async def test_config_error_while_starting_ends_the_app(git_repo: Path) -> None:
    def load() -> Settings:
        raise ConfigError("config.toml: unknown key 'modle'")

    app = build_app(load, git_repo, ARGS)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.startup_error is not None)
    assert isinstance(app.startup_error, ConfigError) and app.return_code == 1


def test_the_user_directories_come_without_importing_config() -> None:
    """The UI reads them before the first frame, which must not wait for pydantic."""
    code = ("import sys, valarmind_tui.core.user_dirs; "
            "print(sorted({'pydantic', 'valarmind_tui.settings.config'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


_IMPORTS_WHILE_BUILDING = r"""
import argparse, asyncio, sys, time
from pathlib import Path
from valarmind_tui.settings.config import Settings
from valarmind_tui.providers import litellm_call
from valarmind_tui.faces.tui.launch import build_app

def load():  # the session waits for the model library: it must be importing already
    deadline = time.monotonic() + 120
    while litellm_call._loaded is None:
        assert time.monotonic() < deadline, "litellm was not imported while the session was built"
        time.sleep(0.05)
    return Settings()

async def main():
    app = build_app(load, Path(sys.argv[1]), argparse.Namespace(resume=None))
    async with app.run_test(size=(80, 24)) as pilot:
        while app.session is None and app.startup_error is None:
            await pilot.pause(0.05)
    print("error" if app.startup_error else "ready")

asyncio.run(main())
"""


def test_the_model_library_is_imported_while_the_session_is_built(git_repo: Path) -> None:
    """The warm-up's longest part starts at the first frame, not once the session exists."""
    out = subprocess.run([sys.executable, "-c", _IMPORTS_WHILE_BUILDING, str(git_repo)],
                         capture_output=True, text=True, timeout=180)
    assert out.stdout.strip() == "ready", out.stderr[-2000:]
