"""Plugins: the shipped example plugin, trust for project plugins, broken plugins are warnings."""

from __future__ import annotations

import shutil
from pathlib import Path

from valarmind_tui.core.events import Notice
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings
from valarmind_tui.settings.trust.decision import decide, remember

EXAMPLE = Path(__file__).resolve().parents[1] / "plugins" / "todo_finder.py"


def trust(project: Path) -> None:
    """As `valarmind trust` does: the folder listed, its configuration recorded."""
    remember(project, True)


def project_with_plugins(git_repo: Path) -> Path:
    (git_repo / "plugins").mkdir()
    shutil.copy(EXAMPLE, git_repo / "plugins" / EXAMPLE.name)
    (git_repo / "plugins" / "broken.py").write_text("import does_not_exist_anywhere\n")
    (git_repo / "app.py").write_text("def greet(name):\n    # TODO: handle empty names\n"
                                     "    return 'Hello ' + name\n")
    return git_repo


async def test_trusted_project_plugin_adds_a_command(git_repo: Path) -> None:
    root = project_with_plugins(git_repo)
    trust(root)
    session = build_session(load_settings(root, trusted=decide(root).trusted), root)
    notices: list[Notice] = []
    session.bus.add_listener(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    await session.start()
    result = await session.run_command("/todos")
    assert result.ok
    assert "`app.py:2` TODO handle empty names" in result.text
    assert [n.level for n in notices] == ["warning"]
    assert "broken.py failed to load" in notices[0].message
    assert "plugins/todo_finder.py" in session.plugins.loaded


async def test_untrusted_project_plugins_do_not_run(git_repo: Path) -> None:
    root = project_with_plugins(git_repo)
    # a repository cannot vouch for itself
    (root / ".valarmind").mkdir()
    (root / ".valarmind/config.toml").write_text(f'trusted_projects = ["{root}"]\n')
    assert decide(root).trusted is False
    session = build_session(load_settings(root, trusted=decide(root).trusted), root)
    notices: list[Notice] = []
    session.bus.add_listener(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    await session.start()
    result = await session.run_command("/todos")
    assert not result.ok and "Unknown command /todos" in result.text
    assert any("not trusted" in n.message and "plugins" in n.message for n in notices)


async def test_trust_command_remembers_and_revokes(git_repo: Path) -> None:
    project_with_plugins(git_repo)
    session = build_session(load_settings(git_repo), git_repo)
    shown = await session.run_command("/trust")
    assert "not trusted" in shown.text and "plugins" in shown.text
    await session.run_command("/trust yes")
    assert decide(git_repo).trusted
    await session.run_command("/trust no")
    assert not decide(git_repo).trusted and decide(git_repo).how == "you declined"


async def test_a_plugin_written_against_the_first_import_path_still_loads(git_repo: Path) -> None:
    """Plugins published before the house move import `valarmind_tui.hookspecs`."""
    root = project_with_plugins(git_repo)
    old = EXAMPLE.read_text().replace("valarmind_tui.plugins.specs", "valarmind_tui.hookspecs")
    assert "from valarmind_tui.hookspecs import hookimpl" in old
    (root / "plugins" / EXAMPLE.name).write_text(old)
    trust(root)
    session = build_session(load_settings(root, trusted=decide(root).trusted), root)
    await session.start()
    result = await session.run_command("/todos")
    assert "`app.py:2` TODO handle empty names" in result.text
