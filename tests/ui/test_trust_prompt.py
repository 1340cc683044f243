"""The TUI asks once whether to trust a folder that ships its own configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.conftest import wait_for
from valarmind_tui.config import Settings
from valarmind_tui.trust import remembered
from valarmind_tui.ui.launch import build_app
from valarmind_tui.ui.screens.trust import TrustScreen

ARGS = type("Args", (), {"resume": None})()


def _loader(seen: list[Any]) -> Any:
    def load(trusted: bool | None = None) -> Settings:
        seen.append(trusted)
        return Settings()

    return load


async def _answer(repo: Path, key: str) -> list[Any]:
    seen: list[Any] = []
    app = build_app(_loader(seen), repo, ARGS)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen)
                       and app.screen.query("#body"))
        assert "mcp.json" in str(app.screen.query_one("#body").render())
        await pilot.press(key)
        await wait_for(pilot, lambda: app.session is not None)
    return seen


async def test_declining_skips_the_configuration_and_is_remembered(git_repo: Path) -> None:
    (git_repo / ".mcp.json").write_text('{"mcpServers": {}}')
    assert await _answer(git_repo, "n") == [False]
    assert remembered(git_repo) is False

    seen: list[Any] = []
    app = build_app(_loader(seen), git_repo, ARGS)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert not isinstance(app.screen, TrustScreen)
    assert seen == [None]  # the remembered decision applies; nobody is asked again


async def test_trusting_is_remembered(git_repo: Path) -> None:
    (git_repo / ".mcp.json").write_text('{"mcpServers": {}}')
    assert await _answer(git_repo, "y") == [True]
    assert remembered(git_repo) is True


async def test_a_folder_without_configuration_is_not_asked_about(git_repo: Path) -> None:
    seen: list[Any] = []
    app = build_app(_loader(seen), git_repo, ARGS)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert not isinstance(app.screen, TrustScreen)
    assert seen == [None] and remembered(git_repo) is None
