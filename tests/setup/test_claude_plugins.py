"""Claude Code plugins the person installed (~/.claude/plugins/installed_plugins.json, turned on
in enabledPlugins): their hooks/hooks.json runs with ${CLAUDE_PLUGIN_ROOT}, their skills list.

The plugin is laid out as Claude Code installs one (plugins reference: `.claude-plugin/
plugin.json`, `hooks/hooks.json`, `skills/<name>/SKILL.md`, under `plugins/cache/<marketplace>/
<plugin>/<version>/`); its files are written here, not vendored."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from valarmind_tui.hooks import HookRunner
from valarmind_tui.settings.config import load_settings
from valarmind_tui.setup.claude_settings import claude_setup
from valarmind_tui.setup.report import Scope
from valarmind_tui.setup.skills import load_skills

SESSION_START = """#!/usr/bin/env bash
# SessionStart: plain stdout is added as context (as the explanatory-output-style plugin does).
echo "Explain each change you make. Plugin root: $CLAUDE_PLUGIN_ROOT"
"""


def install(home: Path, name: str = "explainer", marketplace: str = "team",
            enabled: bool = True, registry_version: int = 2) -> Path:
    root = home / ".claude" / "plugins" / "cache" / marketplace / name / "1.0.0"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(
        {"name": name, "version": "1.0.0", "description": "Explains its changes"}))
    handler = root / "hooks-handlers" / "session-start.sh"
    handler.parent.mkdir()
    handler.write_text(SESSION_START)
    handler.chmod(handler.stat().st_mode | stat.S_IXUSR)
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps({
        "description": "adds the explanatory instructions",
        "hooks": {"SessionStart": [{"hooks": [{
            "type": "command",
            "command": "${CLAUDE_PLUGIN_ROOT}/hooks-handlers/session-start.sh"}]}]}}))
    skill = root / "skills" / "explain-diff"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: explain-diff\ndescription: Explain the staged diff.\n---\nRun git diff.\n")
    key = f"{name}@{marketplace}"
    entry = {"scope": "user", "installPath": str(root), "version": "1.0.0"}
    registry = {"version": 2, "plugins": {key: [entry]}} if registry_version == 2 else {
        "version": 1, "plugins": {key: entry}}
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(json.dumps(registry))
    (home / ".claude" / "settings.json").write_text(json.dumps(
        {"enabledPlugins": {key: enabled}}))
    return root


async def test_an_enabled_plugins_session_start_hook_runs_with_its_root(
        git_repo: Path, isolated_home: Path) -> None:
    root = install(isolated_home)
    runner = HookRunner.from_settings(load_settings(git_repo), git_repo, home=isolated_home)
    [hook] = runner.hooks
    assert hook.command == f"{root}/hooks-handlers/session-start.sh"
    context = await runner.session_start("startup")
    assert context == f"Explain each change you make. Plugin root: {root}"


def test_an_enabled_plugins_skills_list_and_a_disabled_ones_do_not(
        git_repo: Path, isolated_home: Path) -> None:
    install(isolated_home, registry_version=1)
    skills, report = load_skills(git_repo, isolated_home, trusted=False)
    [skill] = skills
    assert (skill.name, skill.scope) == ("explain-diff", Scope.PLUGIN)
    assert [f.loaded for f in report] == [True]
    (isolated_home / ".claude" / "settings.json").write_text(json.dumps(
        {"enabledPlugins": {"explainer@team": False}}))
    assert load_skills(git_repo, isolated_home, trusted=False)[0] == []
    assert claude_setup(git_repo, isolated_home, trusted=False).hooks == []


def test_a_repository_cannot_turn_on_a_plugin_unless_trusted(
        git_repo: Path, isolated_home: Path) -> None:
    install(isolated_home, enabled=False)
    (git_repo / ".claude").mkdir()
    (git_repo / ".claude" / "settings.json").write_text(json.dumps(
        {"enabledPlugins": {"explainer@team": True}}))
    assert claude_setup(git_repo, isolated_home, trusted=False).hooks == []
    assert [h.event for h in claude_setup(git_repo, isolated_home, trusted=True).hooks] == [
        "SessionStart"]


def test_a_missing_install_path_is_one_row_saying_so(git_repo: Path, isolated_home: Path
                                                      ) -> None:
    root = install(isolated_home)
    for path in sorted(root.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    root.rmdir()
    found = claude_setup(git_repo, isolated_home, trusted=False).found
    assert [f.reason for f in found if f.name == "explainer@team"] == [
        f"its installPath {str(root)!r} is not a folder here"]
