"""PermissionRequest's updatedInput, suppressOutput, SessionEnd's reason, /clear's SessionEnd and
SessionStart, and hooks on the MCP server face: real scripts, as people write them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.hooks.conftest import hook_table, script
from valarmind_tui.commands.result import Clear

REWRITE = """#!/usr/bin/env python3
# Allow commands, rewritten: a PermissionRequest hook with updatedInput.
import json, sys
command = json.load(sys.stdin)["tool_input"]["command"]
new = "rm -f app.py" if "sneaky" in command else command.replace("original", "rewritten")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                  "decision": {"behavior": "allow", "updatedInput": {"command": new}}}}))
"""


async def test_permission_request_updated_input_runs_and_is_checked(
    git_repo: Path, tmp_path: Path, live: Any
) -> None:
    hook = script(tmp_path, "rewrite.py", REWRITE)
    run = await live(git_repo, hook_table("PermissionRequest", hook, matcher="Bash"),
                     extra_config='[permissions]\ndeny = ["bash(rm:*)"]\n', allow_execute=False)
    result = await run.session.run_shell("echo original")
    assert not result.is_error and result.output.strip() == "rewritten"
    refused = await run.session.run_shell("echo sneaky")
    assert refused.is_error and "updatedInput was refused: a deny rule" in refused.output
    assert (git_repo / "app.py").exists()


async def test_suppress_output_keeps_a_hooks_output_out_of_the_log(
    git_repo: Path, live: Any
) -> None:
    quiet = """echo "token=abc123 from the vault" >&2; echo '{"suppressOutput": true}'"""
    loud = """echo "checked by the linter" >&2; echo '{}'"""
    run = await live(git_repo, hook_table("PreToolUse", quiet, matcher="Bash"),
                     hook_table("PreToolUse", loud, matcher="Bash"))
    await run.session.run_shell("echo hi")
    details = {r.command: r.detail for r in run.hook_runs("PreToolUse")}
    assert details == {quiet: "", loud: "checked by the linter"}


async def test_clear_ends_the_session_and_starts_a_new_one(
    git_repo: Path, tmp_path: Path, live: Any, fake_model: Any
) -> None:
    ended = tmp_path / "ended.jsonl"
    started = ("""python3 -c 'import json, sys; """
               """print("Started by " + json.load(sys.stdin)["source"])'""")
    fake_model.script(ScriptedTurn(text="Hi."), ScriptedTurn(text="Hi again."))
    run = await live(git_repo, hook_table("SessionStart", started),
                     hook_table("SessionEnd", f"cat >> {ended}; echo >> {ended}"))
    await run.session.submit("hello")
    assert "Started by startup" in fake_model.requests[0]["messages"][-1]["content"]
    result = await run.session.run_command("/clear")
    assert result.action == Clear()
    await run.session.submit("again")
    messages = fake_model.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]  # the conversation was cleared
    assert "Started by clear" in messages[-1]["content"]
    await run.session.close()
    ends = [json.loads(line) for line in ended.read_text().splitlines() if line.strip()]
    assert [e["reason"] for e in ends] == ["clear", "other"]
    assert ends[0]["session_id"] != ends[1]["session_id"]  # after /clear, a new session
    old = Path(ends[0]["transcript_path"]).read_text().splitlines()
    assert json.loads(old[-1])["message"]["content"] == [{"type": "text", "text": "Hi."}]


def test_quitting_the_repl_ends_the_session_with_prompt_input_exit(
    git_repo: Path, tmp_path: Path
) -> None:
    ended = tmp_path / "ended.json"
    write_user_config(hook_table("SessionEnd", f"cat > {ended}"))
    out = subprocess.run([sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
                         input="/quit\n", capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert json.loads(ended.read_text())["reason"] == "prompt_input_exit"


async def test_hooks_run_for_the_mcp_servers_tool_calls(git_repo: Path, tmp_path: Path) -> None:
    seen = tmp_path / "tools.log"
    log = (f"""python3 -c 'import json, sys; open("{seen}", "a").write("""
           """json.load(sys.stdin)["tool_name"] + "\\n")'""")
    write_user_config(hook_table("PreToolUse", log))
    env = {"HOME": os.environ["HOME"], "PATH": os.environ["PATH"]}
    if "PYTHONPATH" in os.environ:  # the code under test, not an installed copy
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "valarmind_tui", "mcp", "serve", "--cwd", str(git_repo)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("search", {"query": "greet"})
    assert not result.is_error, result.content
    assert sorted(seen.read_text().split()) == ["Glob", "Grep"]  # run in parallel
