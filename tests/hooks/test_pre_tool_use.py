"""PreToolUse hooks of the kinds people share, unchanged from Claude Code, through the gate."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.hooks.conftest import hook_table, script

BLOCK_RM = """#!/usr/bin/env python3
# The classic Claude Code example: refuse rm -rf, reading .tool_input.command from stdin.
import json, sys
data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if data.get("tool_name") == "Bash" and "rm -rf" in command:
    print("Blocked: rm -rf is not allowed here; delete files one by one.", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
"""

PROTECT_FILES = """#!/usr/bin/env python3
import fnmatch, json, os, sys
data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
if any(fnmatch.fnmatch(os.path.basename(path), p) for p in ("*.lock", ".env*", "secrets.*")):
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": f"{path} is a protected file; do not edit it."}}))
"""

LOG_COMMANDS = (
    """python3 -c 'import json, os, sys; d = json.load(sys.stdin); """
    """open(os.path.expanduser("~/bash-command-log.txt"), "a").write("%s %s %s\\n" % ("""
    """d["tool_input"]["command"], os.environ["CLAUDE_PROJECT_DIR"], d["session_id"] != ""))'"""
)


async def test_rm_rf_blocked_by_exit_2_and_the_model_reads_why(
    git_repo: Path, tmp_path: Path, live: Any, fake_model: Any
) -> None:
    hook = script(tmp_path, "block-rm.py", BLOCK_RM)
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_text("x")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "qa", "task": "clean the build, then run the tests"}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "rm -rf build"}}]),
        ScriptedTurn(text=json.dumps({"summary": "could not clean the build", "passed": False,
                                      "checks": []})),
        ScriptedTurn(text="I could not delete build."),
    )
    run = await live(git_repo, hook_table("PreToolUse", hook, matcher="Bash"))
    result = await run.session.submit("clean the build folder")
    assert result.status == "done", result.text
    assert (git_repo / "build" / "out.o").exists()
    told = [m["content"] for m in fake_model.requests[2]["messages"] if m["role"] == "tool"]
    assert "Blocked by a PreToolUse hook: Blocked: rm -rf is not allowed here" in told[-1]
    listed = await run.session.run_shell("ls build")  # the same hook lets other commands through
    assert listed.output.strip() == "out.o"
    runs = run.hook_runs("PreToolUse")
    assert [r.outcome for r in runs] == ["blocked", "ok"]
    assert runs[0].exit_code == 2 and runs[0].command == str(hook) and runs[0].matcher == "Bash"
    assert "rm -rf is not allowed" in runs[0].detail


async def test_protected_files_by_pattern_are_denied_with_the_reason(
    git_repo: Path, tmp_path: Path, live: Any
) -> None:
    hook = script(tmp_path, "protect.py", PROTECT_FILES)
    run = await live(git_repo, hook_table("PreToolUse", hook, matcher="Edit|Write"))
    write = run.session.tools.get("write_file")
    assert write is not None
    from valarmind_tui.agents.gated_call import run_gated
    from valarmind_tui.safety.gate.permissions import AgentPermissions
    from valarmind_tui.tools.base import ToolContext

    ctx = ToolContext(project_root=git_repo, sandbox=run.session.sandbox)
    status, result = await run_gated(
        write, write.parse({"path": "poetry.lock", "content": "x"}), ctx, run.session.gate,
        AgentPermissions.full())
    assert status == "denied" and not (git_repo / "poetry.lock").exists()
    assert "poetry.lock is a protected file" in result.output
    status, _ = await run_gated(
        write, write.parse({"path": "notes.txt", "content": "x"}), ctx, run.session.gate,
        AgentPermissions.full())
    assert status == "ok" and (git_repo / "notes.txt").read_text() == "x"
    assert [r.outcome for r in run.hook_runs()] == ["blocked", "ok"]


async def test_every_command_is_logged_with_the_claude_environment(
    git_repo: Path, live: Any, isolated_home: Path
) -> None:
    run = await live(git_repo, hook_table("PreToolUse", LOG_COMMANDS, matcher="Bash"))
    await run.session.run_shell("echo one")
    await run.session.run_shell("git status --short")
    log = (isolated_home / "bash-command-log.txt").read_text().splitlines()
    assert log == [f"echo one {git_repo} True", f"git status --short {git_repo} True"]


async def test_a_deny_rule_is_not_overridden_by_a_hook_allow(
    git_repo: Path, live: Any
) -> None:
    allow_all = ("""echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", """
                 """"permissionDecision": "allow", "permissionDecisionReason": "all fine"}}'""")
    run = await live(git_repo, hook_table("PreToolUse", allow_all),
                     extra_config='[permissions]\ndeny = ["bash(rm:*)"]\n', allow_execute=False)
    (git_repo / "keep.txt").write_text("x")
    denied = await run.session.run_shell("rm keep.txt")
    assert denied.is_error and "deny rule bash(rm:*)" in denied.output
    assert (git_repo / "keep.txt").exists()
    assert run.hook_runs() == []  # deny rules come first: the hook was not even asked
    # the hook's allow does answer an "ask" (the headless policy here would deny commands)
    allowed = await run.session.run_shell("echo allowed-by-hook")
    assert not allowed.is_error and "allowed-by-hook" in allowed.output
    # ...but never a protected path: only a person may allow writing .git/
    protected = await run.session.run_shell("echo x > .git/description")
    assert protected.is_error and "protected-path" in protected.output


def _says(decision: str, reason: str) -> str:
    return ("""echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", """
            f""""permissionDecision": "{decision}", "permissionDecisionReason": "{reason}"}}}}'""")


async def test_the_strictest_of_several_hooks_wins(git_repo: Path, live: Any) -> None:
    """deny > ask > allow whatever order the hooks run in (the headless policy here denies
    what asks about a command)."""
    allow, ask, deny = _says("allow", "fine"), _says("ask", "sure?"), _says("deny", "no way")
    run = await live(git_repo, hook_table("PreToolUse", deny), hook_table("PreToolUse", allow),
                     allow_execute=False)
    denied = await run.session.run_shell("echo one")
    assert denied.is_error and "Blocked by a PreToolUse hook: no way" in denied.output
    run = await live(git_repo, hook_table("PreToolUse", allow), hook_table("PreToolUse", ask),
                     allow_execute=False)
    asked = await run.session.run_shell("echo two")
    assert asked.is_error and "two" not in asked.output
    run = await live(git_repo, hook_table("PreToolUse", allow), hook_table("PreToolUse", allow),
                     allow_execute=False)
    allowed = await run.session.run_shell("echo three")
    assert not allowed.is_error and "three" in allowed.output


async def test_updated_input_replaces_the_arguments_and_is_checked_again(
    git_repo: Path, live: Any
) -> None:
    rewrite = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
command = data["tool_input"]["command"]
new = "echo rewritten" if command == "echo original" else "rm -f app.py"
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                  "updatedInput": {"command": new}}}))
"""
    folder = git_repo.parent
    hook = script(folder, "rewrite.py", rewrite)
    run = await live(git_repo, hook_table("PreToolUse", hook, matcher="Bash"),
                     extra_config='[permissions]\ndeny = ["bash(rm:*)"]\n')
    result = await run.session.run_shell("echo original")
    assert result.output.strip() == "rewritten"
    result = await run.session.run_shell("echo other")
    assert result.is_error and "deny rule bash(rm:*)" in result.output
    assert (git_repo / "app.py").exists()


async def test_a_slow_a_broken_and_a_missing_hook_never_stop_the_session(
    git_repo: Path, tmp_path: Path, live: Any
) -> None:
    invalid = script(tmp_path, "invalid.sh", "#!/bin/bash\necho '{\"decision\": '\n")
    tables = [
        hook_table("PreToolUse", "sleep 30", matcher="Bash", timeout=1),
        hook_table("PreToolUse", invalid, matcher="Bash"),
        hook_table("PreToolUse", tmp_path / "no-such-hook.sh", matcher="Bash"),
    ]
    run = await live(git_repo, *tables)
    started = time.monotonic()
    result = await run.session.run_shell("echo still-running")
    assert time.monotonic() - started < 15
    assert not result.is_error and "still-running" in result.output
    outcomes = {r.command: (r.outcome, r.exit_code) for r in run.hook_runs()}
    assert outcomes == {
        "sleep 30": ("timeout", None), str(invalid): ("invalid_output", 0),
        str(tmp_path / "no-such-hook.sh"): ("error", 127),
    }
    warnings = "\n".join(run.warnings())
    assert "timed out after 1 s" in warnings and "not valid JSON" in warnings
    assert "exit code 127" in warnings and "No such file" in warnings


async def test_a_decision_of_the_wrong_shape_is_no_opinion(git_repo: Path, live: Any) -> None:
    """Hook output is untrusted JSON: a list where a decision string belongs is ignored (it
    crashed the verdict with "unhashable type"), and the command runs."""
    tables = [
        hook_table("PreToolUse", """echo '{"decision": ["block"]}'""", matcher="Bash"),
        hook_table("PreToolUse", """echo '{"hookSpecificOutput": {"permissionDecision": """
                   """["deny"], "permissionDecisionReason": "x"}}'""", matcher="Bash"),
    ]
    run = await live(git_repo, *tables)
    result = await run.session.run_shell("echo still-running")
    assert not result.is_error and "still-running" in result.output
    assert [r.outcome for r in run.hook_runs("PreToolUse")] == ["ok", "ok"]


def test_hook_json_names_and_matchers_follow_claude_code() -> None:
    from valarmind_tui.hooks.names import from_hook_input, matcher_matches, to_hook_input

    assert matcher_matches("Bash", "bash") and matcher_matches("bash", "bash")
    assert matcher_matches("Edit|Write", "write_file") and not matcher_matches("Edit", "bash")
    assert matcher_matches("mcp__github__.*", "mcp__github__create_issue")
    assert not matcher_matches("Bas", "bash")  # a full match, not a search
    assert matcher_matches("", "anything") and matcher_matches("*", "anything")
    assert to_hook_input("edit_file", {"path": "a", "old_string": "x"}) == {
        "file_path": "a", "old_string": "x"}
    assert from_hook_input("write_file", {"file_path": "b"}) == {"path": "b"}
    assert json.dumps(to_hook_input("bash", {"command": "ls"})) == '{"command": "ls"}'


async def test_continue_false_stops_the_prompt_with_the_stop_reason(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    stop = """echo '{"continue": false, "stopReason": "The build is broken: fix CI first."}'"""
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "qa", "task": "run the tests"}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "echo tests"}}]),
    )
    run = await live(git_repo, hook_table("PreToolUse", stop, matcher="Bash"))
    result = await run.session.submit("run the tests")
    assert result.status == "escalated" and "The build is broken: fix CI first." in result.text
    assert len(fake_model.requests) == 2
    shell = await run.session.run_shell("echo mine")  # the person's own command: refused only
    assert shell.is_error and "fix CI first" in shell.output
