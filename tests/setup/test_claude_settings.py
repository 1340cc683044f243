"""Claude Code's settings.json files, where people keep them: rules reach the gate, the rest
is reported row by row (valarmind setup)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.setup.conftest import check, gate_for, place, user_settings
from valarmind_tui.safety.gate.approval import ApprovalAnswer, PermissionMode
from valarmind_tui.setup.claude_settings import claude_setup
from valarmind_tui.setup.report import Kind, Scope


def test_a_projects_allow_rules_load_in_a_trusted_folder(tmp_path: Path) -> None:
    project = place("pydantic-ai", tmp_path / "pydantic-ai")
    trusted = claude_setup(project, tmp_path / "home", trusted=True)
    assert len(trusted.project_rules["allow"]) == 20
    assert "bash(uv run pytest:*)" in trusted.project_rules["allow"]
    assert "bash(make format)" in trusted.project_rules["allow"]
    rows = [f for f in trusted.found if f.kind is Kind.RULE]
    assert len(rows) == 20 and all(f.loaded and f.scope is Scope.PROJECT for f in rows)


def test_an_untrusted_folders_allow_rules_wait_and_say_so(tmp_path: Path) -> None:
    project = place("pydantic-ai", tmp_path / "pydantic-ai")
    untrusted = claude_setup(project, tmp_path / "home", trusted=False)
    assert untrusted.project_rules["allow"] == []
    assert all(not f.loaded and "untrusted folder" in f.reason for f in untrusted.found)


async def test_a_trusted_projects_allow_rule_runs_its_command_without_asking(
        git_repo: Path) -> None:
    place("pydantic-ai", git_repo)
    gate, person = gate_for(git_repo, trusted=True)
    decision = await check(gate, git_repo, "bash", command="uv run pytest -q tests/")
    assert decision.allowed and "bash(uv run pytest:*)" in decision.reason
    assert person.asked == []
    chained = await check(gate, git_repo, "bash", command="uv run pytest; rm -rf src")
    assert not chained.allowed and len(person.asked) == 1  # asked, the person said no


async def test_the_users_deny_ask_and_allow_rules_in_bypass_mode(
        git_repo: Path, isolated_home: Path) -> None:
    user_settings(isolated_home)
    gate, person = gate_for(git_repo, trusted=False, mode=PermissionMode.BYPASS,
                            answer=ApprovalAnswer("allow_once"))
    curl = await check(gate, git_repo, "bash", command="curl https://example.org")
    assert not curl.allowed and "bash(curl:*)" in curl.reason and person.asked == []
    push = await check(gate, git_repo, "bash", command="git push origin main")
    assert push.allowed and len(person.asked) == 1  # bypass, yet the ask rule asked
    assert "the ask rule bash(git push:*) matches" in person.asked[0].reason
    fetch = await check(gate, git_repo, "web_fetch", url="https://docs.example.com/x")
    assert not fetch.allowed and "web_fetch(domain:example.com)" in fetch.reason


async def test_the_users_allow_rule_answers_in_default_mode(
        git_repo: Path, isolated_home: Path) -> None:
    user_settings(isolated_home)
    gate, person = gate_for(git_repo, trusted=False)
    lint = await check(gate, git_repo, "bash", command="npm run lint")
    assert lint.allowed and person.asked == []
    tests = await check(gate, git_repo, "bash", command="npm run test -- --watch=false")
    assert tests.allowed and person.asked == []
    other = await check(gate, git_repo, "bash", command="npm run testing")  # a whole word
    assert not other.allowed and len(person.asked) == 1
    docs = await check(gate, git_repo, "web_fetch", url="https://docs.python.org/3/")
    assert docs.allowed and len(person.asked) == 1


async def test_an_ask_rule_on_paths_asks_in_accept_edits(
        git_repo: Path, isolated_home: Path) -> None:
    user_settings(isolated_home)
    gate, person = gate_for(git_repo, trusted=False, mode=PermissionMode.ACCEPT_EDITS)
    other = await check(gate, git_repo, "write_file", path="src/app.py", content="x = 1\n")
    assert other.allowed and person.asked == []
    migration = await check(gate, git_repo, "write_file", path="migrations/0001.sql",
                            content="drop table users;\n")
    assert not migration.allowed and len(person.asked) == 1


def test_the_documented_user_file_row_by_row(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user_settings(home)
    setup = claude_setup(tmp_path / "project", home, trusted=False)
    rows = {f.name: f for f in setup.found}
    assert rows["deny Bash(git * --force)"].loaded is False
    assert rows["model"].reason == "a Claude Code setting ValarMind does not read"
    assert "defaultMode" in rows["permissions.defaultMode"].name
    assert rows["TeammateIdle"].reason.startswith("unknown hook event 'TeammateIdle'")
    stop = rows["Stop: prompt: Check whether every task the user asked for is complete: "
                "$ARGUMENTS"]
    assert stop.loaded
    assert [(h.event, h.kind) for h in setup.hooks] == [  # the rest of the file loaded
        ("PostToolUse", "command"), ("Stop", "prompt")]
    hook = setup.hooks[0]
    assert hook.matcher == "Edit|MultiEdit|Write" and hook.timeout == 30
    assert ("HOOK_GREETING", "from-user-settings") in hook.env
    assert setup.user_rules["ask"] == ["bash(git push:*)", "edit_file(migrations/**)",
                                       "write_file(migrations/**)"]


def test_hooks_of_real_projects(tmp_path: Path) -> None:
    ruff = place("ruff", tmp_path / "ruff")
    vscode = place("vscode", tmp_path / "vscode")
    home = tmp_path / "home"
    ruff_hooks = claude_setup(ruff, home, trusted=True).hooks
    assert [(h.event, h.matcher, h.command) for h in ruff_hooks] == [
        ("SessionStart", "startup", ".claude/hooks/session-start.sh")]
    vscode_hooks = claude_setup(vscode, home, trusted=True).hooks
    assert [(h.event, h.matcher, h.command) for h in vscode_hooks] == [
        ("PreToolUse", "Bash", "npx block-no-verify@1.1.2")]
    assert claude_setup(vscode, home, trusted=False).hooks == []


def test_a_broken_file_is_one_row_naming_file_and_line(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{\n  "permissions": {\n    "deny": [,]\n')
    (project / ".claude" / "settings.local.json").write_text(json.dumps(
        {"permissions": {"deny": ["Bash(rm:*)"]}}))
    setup = claude_setup(project, tmp_path / "home", trusted=False)
    broken = [f for f in setup.found if not f.loaded]
    assert len(broken) == 1 and "settings.json:3: not valid JSON" in broken[0].reason
    assert setup.project_rules["deny"] == ["bash(rm:*)"]  # the other file still counts
