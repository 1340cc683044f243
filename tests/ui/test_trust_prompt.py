"""The TUI asks once whether to trust a folder that ships its own configuration, and again
when a trusted folder's configuration changed since."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.conftest import screen_shown, wait_for
from valarmind_tui.faces.tui.launch import build_app
from valarmind_tui.faces.tui.screens.trust import TrustScreen
from valarmind_tui.settings.config import Settings, load_settings
from valarmind_tui.settings.trust.decision import decide, remember, remembered

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
        await screen_shown(pilot, app, TrustScreen)
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


async def test_enter_or_esc_skips_it_this_time_and_remembers_nothing(git_repo: Path) -> None:
    """Enter did nothing; Esc recorded "untrusted" forever, silently."""
    (git_repo / ".mcp.json").write_text('{"mcpServers": {}}')
    for key in ("enter", "escape"):
        assert await _answer(git_repo, key) == [False]  # not loaded this session
        assert remembered(git_repo) is None  # and asked again next time


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


def _plugin_folder(repo: Path) -> Path:
    """A trusted folder whose plugins/ then gains a tool (as a `git pull` would bring it)."""
    (repo / "plugins").mkdir()
    (repo / "plugins" / "fine.py").write_text("VALUE = 1\n")
    remember(repo, True)
    (repo / "plugins" / "added.py").write_text(
        "from valarmind_tui.plugins.specs import hookimpl\n"
        "@hookimpl\ndef register_commands(register):\n"
        "    from valarmind_tui.commands.registry import Command\n"
        "    async def run(ctx, args): ...\n"
        "    register(Command('added', 'from the added plugin \\x1b[2K', run))\n")
    return repo


def _real_loader(repo: Path, seen: list[Any]) -> Any:
    def load(trusted: bool | None = None) -> Settings:
        seen.append(trusted)
        return load_settings(repo, trusted=decide(repo).trusted if trusted is None else trusted)

    return load


async def test_a_changed_configuration_is_shown_and_yes_loads_it(git_repo: Path) -> None:
    _plugin_folder(git_repo)
    seen: list[Any] = []
    app = build_app(_real_loader(git_repo, seen), git_repo, ARGS)
    async with app.run_test(size=(110, 40)) as pilot:
        await screen_shown(pilot, app, TrustScreen)
        body = str(app.screen.query_one("#body").render())
        shown = str(app.screen.query_one("#changes").render())
        assert "added: plugins/added.py" in body and "changed since you trusted it" in str(
            app.screen.query_one("#title").render())
        assert "+    register(Command('added'" in shown
        assert "\x1b" not in shown and "\\x1b" in shown  # the file's own text, escaped
        await pilot.press("y")
        await wait_for(pilot, lambda: app.session is not None)
        assert "plugins/added.py" in app.session.plugins.loaded
    assert seen == [True]
    assert decide(git_repo).trusted  # and what was shown is now the trusted configuration


async def _decline(repo: Path) -> list[Any]:
    seen: list[Any] = []
    app = build_app(_real_loader(repo, seen), repo, ARGS)
    async with app.run_test(size=(110, 40)) as pilot:
        await screen_shown(pilot, app, TrustScreen)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session.plugins.loaded == []
    return seen


async def test_no_to_a_change_skips_it_and_asks_again(git_repo: Path) -> None:
    _plugin_folder(git_repo)
    assert await _decline(git_repo) == [False]
    assert await _decline(git_repo) == [False]  # asked again at the next start
    assert remembered(git_repo) is True
