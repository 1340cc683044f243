"""Loading a stored session, the task list as a plan, the client's MCP servers, broken input."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION
from acp.schema import EnvVariable, McpServerStdio

from tests.acp.conftest import (
    KEY_ENV,
    RecordingClient,
    acp_agent,
    ask,
    configure_model,
    new_session,
)
from tests.fakes.model_server import ScriptedTurn

PROBE = """
import os
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

app = MCPServer("probe")

@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def env() -> dict:
    \"\"\"The server's environment variables.\"\"\"
    return dict(os.environ)

app.run()
"""


async def test_load_session_replays_the_conversation_and_continues_it(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "README.md"}}]),
        ScriptedTurn(text="The README says demo."),
    )
    first = RecordingClient()
    async with acp_agent(first, git_repo, agent_log) as conn:
        session_id = await new_session(conn, git_repo)
        await ask(conn, session_id, "what is in the README?")
    again = RecordingClient()
    fake_model.script(ScriptedTurn(text="We talked about the README."))
    async with acp_agent(again, git_repo, agent_log) as conn:
        loaded = await asyncio.wait_for(
            conn.load_session(cwd=str(git_repo), session_id=session_id, mcp_servers=[]), 30)
        replayed = list(again.kinds())
        listed = await conn.list_sessions(cwd=str(git_repo))
        result = await ask(conn, session_id, "what did we talk about?")
    assert loaded.modes.current_mode_id == "default"
    assert [s.session_id for s in listed.sessions] == [session_id]
    assert listed.sessions[0].cwd == str(git_repo.resolve())
    assert replayed[:3] == ["user_message_chunk", "tool_call", "agent_message_chunk"]
    assert again.text("user_message_chunk") == "what is in the README?"
    [call] = again.of("tool_call")
    assert (call.title, call.status, call.kind) == ("read_file README.md", "completed", "read")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    assert again.text() == "The README says demo.We talked about the README."
    history = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "user"]
    assert history[-2:] == ["what is in the README?", "what did we talk about?"]


async def test_loading_an_unknown_session_says_so(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    async with acp_agent(RecordingClient(), git_repo, agent_log) as conn:
        try:
            await conn.load_session(cwd=str(git_repo), session_id="missing", mcp_servers=[])
        except Exception as exc:
            assert "no stored session 'missing'" in str(exc) or "missing" in str(exc.data)
        else:
            raise AssertionError("loading an unknown session succeeded")


async def test_the_task_list_is_sent_as_a_plan(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(
        ScriptedTurn(tool_calls=[
            {"name": "task_create", "arguments": {"title": "Read the code"}, "id": "c1"},
            {"name": "task_create", "arguments": {"title": "Write the fix", "owner": "code",
                                                  "depends_on": ["t1"]}, "id": "c2"}]),
        ScriptedTurn(tool_calls=[{"name": "task_update",
                                  "arguments": {"id": "t1", "status": "in_progress"}}]),
        ScriptedTurn(text="Planned."),
    )
    client = RecordingClient()
    async with acp_agent(client, git_repo, agent_log) as conn:
        result = await ask(conn, await new_session(conn, git_repo), "plan it")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    last = client.of("plan")[-1].entries
    assert [(e.content, e.status, e.priority) for e in last] == [
        ("Read the code", "in_progress", "high"),
        ("Write the fix (code)", "pending", "low"),
    ]


async def test_a_client_mcp_server_gets_only_the_env_the_client_gave(
    git_repo: Path, fake_model: Any, agent_log: Path, tmp_path: Path
) -> None:
    configure_model(fake_model)
    script = tmp_path / "probe_server.py"
    script.write_text(PROBE)
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "research", "task": "Report the probe server's environment."}}]),
        ScriptedTurn(tool_calls=[{"name": "mcp__probe__env", "arguments": {}}]),
        ScriptedTurn(text='{"summary": "Read the environment."}'),
        ScriptedTurn(text="Read the environment."),
    )
    client = RecordingClient()
    server = McpServerStdio(name="probe", command=sys.executable, args=[str(script)],
                            env=[EnvVariable(name="PROBE_GIVEN", value="by-the-editor")])
    async with acp_agent(client, git_repo, agent_log) as conn:
        created = await asyncio.wait_for(
            conn.new_session(cwd=str(git_repo), mcp_servers=[server]), 60)
        result = await ask(conn, created.session_id, "show the env")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    output = fake_model.requests[2]["messages"][-1]["content"]
    assert "by-the-editor" in output
    assert "sk-test" not in output
    [call] = [u for u in client.of("tool_call") if u.title.startswith("research: mcp__probe")]
    assert call.kind == "read"
    done = [u for u in client.of("tool_call_update") if u.tool_call_id == call.tool_call_id]
    assert done[-1].status == "completed" and client.permissions == []


async def test_broken_messages_get_json_rpc_errors_and_the_agent_keeps_serving(
    git_repo: Path, agent_log: Path
) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "valarmind_tui", "acp", cwd=git_repo,
        env={**os.environ, **KEY_ENV}, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=agent_log.open("wb"))
    assert proc.stdin is not None and proc.stdout is not None
    lines = [
        b"this is not json\n",
        b"[1, 2, 3]\n",
        b'{"jsonrpc": "2.0", "id": 5, "method": "no/such/method"}\n',
        b'{"jsonrpc": "2.0", "id": 6, "method": "session/prompt", "params": {"sessionId": 1}}\n',
        b'{"jsonrpc": "2.0", "id": 7, "method": 42}\n',
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "initialize",
                    "params": {"protocolVersion": PROTOCOL_VERSION}}).encode() + b"\n",
    ]
    try:
        for line in lines:
            proc.stdin.write(line)
        await proc.stdin.drain()
        replies = []
        while len(replies) < 6:
            raw = await asyncio.wait_for(proc.stdout.readline(), 30)
            assert raw, agent_log.read_text()
            replies.append(json.loads(raw))
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 30)
    errors = {r.get("id"): r["error"] for r in replies if "error" in r}
    assert [e["code"] for e in (r["error"] for r in replies if r.get("id") is None)] == [
        -32700, -32600]
    assert "not JSON" in replies[0]["error"]["message"]
    assert errors[5]["code"] == -32601
    assert errors[6]["code"] == -32602
    assert errors[7]["code"] == -32600
    [ok] = [r for r in replies if r.get("id") == 8]
    assert ok["result"]["protocolVersion"] == PROTOCOL_VERSION
    assert proc.returncode == 0
