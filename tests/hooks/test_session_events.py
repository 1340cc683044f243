"""The other hook events: PostToolUse, UserPromptSubmit, Stop, SessionStart/End,
PermissionRequest and Notification, with real scripts and the fake model server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.hooks.conftest import hook_table, script
from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.core.events import Notice
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.tools.base import ToolContext

RUFF = Path(sys.executable).parent / "ruff"


async def _run_tool(run: Any, root: Path, name: str, **arguments: Any) -> Any:
    tool = run.session.tools.get(name)
    ctx = ToolContext(project_root=root, sandbox=run.session.sandbox)
    return await run_gated(tool, tool.parse(arguments), ctx, run.session.gate,
                           AgentPermissions.full())


async def test_post_tool_use_formats_the_file_after_write_and_edit(
    git_repo: Path, tmp_path: Path, live: Any
) -> None:
    formatter = script(tmp_path, "format.sh", f"""#!/bin/bash
# Format a Python file after Claude edits it (reads .tool_input.file_path).
file=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["file_path"])')
case "$file" in
  *.py) "{RUFF}" format --quiet "$file" || exit 1 ;;
esac
echo '{{"hookSpecificOutput": {{"hookEventName": "PostToolUse",
       "additionalContext": "formatted"}}}}'
""")
    run = await live(git_repo, hook_table("PostToolUse", formatter, matcher="Write|Edit"))
    status, result = await _run_tool(run, git_repo, "write_file", path="fmt.py",
                                     content="x=[1,2 ,3]\n")
    assert status == "ok" and (git_repo / "fmt.py").read_text() == "x = [1, 2, 3]\n"
    assert "PostToolUse hook context: formatted" in result.output
    status, _ = await _run_tool(run, git_repo, "edit_file", path="fmt.py",
                                old_string="x = [1, 2, 3]", new_string="y={'a':1}")
    assert status == "ok" and (git_repo / "fmt.py").read_text() == 'y = {"a": 1}\n'
    await _run_tool(run, git_repo, "read_file", path="fmt.py")  # Read does not match
    assert [r.outcome for r in run.hook_runs("PostToolUse")] == ["ok", "ok"]


async def test_user_prompt_submit_context_reaches_the_model(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    add_context = ("""echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", """
                   """"additionalContext": "Ticket ABC-123 is about greet()."}, """
                   """"systemMessage": "Added the ticket."}'""")
    fake_model.script(ScriptedTurn(text="Noted."))
    run = await live(git_repo, hook_table("UserPromptSubmit", add_context),
                     hook_table("UserPromptSubmit", "echo 'Current branch: main'"))
    result = await run.session.submit("what is the ticket about?")
    assert result.status == "done"
    sent = fake_model.requests[0]["messages"][-1]
    assert sent["role"] == "user" and sent["content"].startswith("what is the ticket about?")
    assert "Ticket ABC-123 is about greet()." in sent["content"]
    assert "Current branch: main" in sent["content"]
    notes = [e.message for e in run.of(Notice)]
    assert "UserPromptSubmit hook: Added the ticket." in notes


async def test_user_prompt_submit_exit_2_keeps_the_prompt_from_the_model(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    refuse = """python3 -c 'import json, sys
p = json.load(sys.stdin)["prompt"]
if "password" in p: print("Do not paste passwords into prompts.", file=sys.stderr); sys.exit(2)'"""
    run = await live(git_repo, hook_table("UserPromptSubmit", refuse))
    result = await run.session.submit("my password is hunter2, log in")
    assert result.status == "failed" and "Do not paste passwords" in result.text
    assert fake_model.requests == []
    assert any("Do not paste passwords" in w for w in run.warnings())


async def test_a_stop_hook_makes_the_agent_continue_once(
    git_repo: Path, tmp_path: Path, live: Any, fake_model: Any
) -> None:
    seen = tmp_path / "stop-inputs.jsonl"
    always_block = script(tmp_path, "stop.sh", f"""#!/bin/bash
cat >> {seen}
echo >> {seen}
echo "Run the tests before you finish." >&2
exit 2
""")
    fake_model.script(ScriptedTurn(text="Done."), ScriptedTurn(text="Tests ran: all green."))
    run = await live(git_repo, hook_table("Stop", always_block))
    result = await run.session.submit("fix it")
    assert result.status == "done" and result.text == "Tests ran: all green."
    assert len(fake_model.requests) == 2
    nudge = fake_model.requests[1]["messages"][-1]
    assert nudge["role"] == "user" and "Run the tests before you finish." in nudge["content"]
    inputs = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [i["stop_hook_active"] for i in inputs] == [False, True]
    assert inputs[0]["hook_event_name"] == "Stop" and inputs[0]["cwd"] == str(git_repo)
    assert any("already continued once" in w for w in run.warnings())


async def test_session_start_context_and_session_end(
    git_repo: Path, tmp_path: Path, live: Any, fake_model: Any
) -> None:
    ended = tmp_path / "ended.json"
    fake_model.script(ScriptedTurn(text="Hi."))
    run = await live(git_repo, hook_table("SessionStart", "echo 'Open issues: 3'"),
                     hook_table("SessionEnd", f"cat > {ended}"))
    await run.session.submit("hello")
    assert "Open issues: 3" in fake_model.requests[0]["messages"][-1]["content"]
    await run.session.close()
    data = json.loads(ended.read_text())
    assert data["hook_event_name"] == "SessionEnd" and data["reason"] == "other"
    transcript = Path(data["transcript_path"]).read_text().splitlines()
    last = json.loads(transcript[-1])  # Claude Code's line shape
    assert last["type"] == "assistant" and last["sessionId"] == data["session_id"]
    assert last["message"] == {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}
    first = json.loads(transcript[0])
    assert first["message"]["content"].startswith("hello") and first["parentUuid"] is None
    assert last["parentUuid"] == first["uuid"]


async def test_permission_request_answers_and_notification_hears_the_ask(
    git_repo: Path, tmp_path: Path, live: Any
) -> None:
    heard = tmp_path / "notified.json"
    allow = ("""echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", """
             """"decision": {"behavior": "allow"}}}'""")
    run = await live(git_repo, hook_table("PermissionRequest", allow, matcher="Bash"),
                     hook_table("Notification", f"cat > {heard}"), allow_execute=False)
    result = await run.session.run_shell("echo via-permission-hook")
    assert not result.is_error and "via-permission-hook" in result.output
    # a write the headless policy allows still asks for a protected path; the Bash-only
    # PermissionRequest hook does not match, so the Notification hook hears the question
    status, _ = await _run_tool(run, git_repo, "write_file", path=".mcp.json", content="{}")
    assert status == "denied"
    await run.session.close()
    note = json.loads(heard.read_text())
    assert note["notification_type"] == "permission_prompt" and "write_file" in note["message"]


async def test_subagent_stop_keeps_a_specialist_going_once(
    git_repo: Path, tmp_path: Path, live: Any, fake_model: Any
) -> None:
    seen = tmp_path / "subagent-stop.json"
    once = script(tmp_path, "subagent-stop.py", f"""#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
open("{seen}", "a").write(json.dumps(data) + "\\n")
if not data["stop_hook_active"]:
    print(json.dumps({{"decision": "block", "reason": "Also run the linter."}}))
""")
    qa = json.dumps({"summary": "checked", "passed": True, "checks": []})
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "qa", "task": "check the project"}}]),
        ScriptedTurn(text=qa), ScriptedTurn(text=qa), ScriptedTurn(text="All checked."),
    )
    run = await live(git_repo, hook_table("SubagentStop", once))
    result = await run.session.submit("check it")
    assert result.status == "done" and result.text == "All checked."
    nudge = fake_model.requests[2]["messages"][-1]
    assert nudge["role"] == "user" and "Also run the linter." in nudge["content"]
    inputs = [json.loads(line) for line in seen.read_text().splitlines()]
    assert [(i["hook_event_name"], i["agent_id"], i["stop_hook_active"]) for i in inputs] == [
        ("SubagentStop", "qa-1", False), ("SubagentStop", "qa-1", True)]


async def test_pre_compact_runs_before_compaction_with_its_trigger(
    git_repo: Path, tmp_path: Path
) -> None:
    from tests.conftest import write_user_config
    from valarmind_tui.safety.gate.approval import PolicyApprover
    from valarmind_tui.session.wiring import build_session
    from valarmind_tui.settings.config import load_settings

    seen = tmp_path / "compact.json"
    write_user_config(hook_table("PreCompact", f"cat > {seen}", matcher="manual")
                      + hook_table("PreCompact", f"touch {tmp_path / 'auto'}", matcher="auto"))
    session = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    session.history = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    result = await session.run_command("/compact")
    assert result.ok
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "PreCompact" and data["trigger"] == "manual"
    assert not (tmp_path / "auto").exists()
