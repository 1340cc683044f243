"""MCP servers' tools inside a session: the orchestrator uses them directly, writes go through
the gate by mode, `agents` says who gets them, and schemas load on demand. Real servers (npm
filesystem, Python servers in tests/fixtures/mcp), LiteLLM against the fake model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mcp"


class RecordingApprover:
    """Answers every request with `answer` and keeps what was asked."""

    def __init__(self, answer: str = "deny") -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        return ApprovalAnswer(self.answer)  # type: ignore[arg-type]


def server_toml(name: str, args: list[str], extra: str = "") -> str:
    quoted = ", ".join(json.dumps(a) for a in args)
    return (f'[mcp.servers.{name}]\ncommand = {json.dumps(sys.executable)}\n'
            f'args = [{quoted}]\n{extra}')


def session_for(root: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch, *,
                approver: Any, mode: str = "default", trusted: bool = False) -> Session:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = load_settings(root, trusted=trusted, model="openai/fake-model",
                             api_base=fake_model.openai_base, api_key_env="FAKE_API_KEY",
                             permission_mode=mode)
    return build_session(settings, root, approver=approver)


def tool_names(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_print_mode_orchestrator_reads_a_project_mcp_json_server(
    git_repo: Path, npm_servers: dict[str, Path], fake_model: Any
) -> None:
    """Acceptance: a server in a trusted project's .mcp.json, no other step, `-p` in default
    mode: the main agent is told about it and reads the file through it."""
    (git_repo / "inventory.txt").write_text("widgets: 4417 in stock\n")
    (git_repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"filesystem": {
        "command": str(npm_servers["filesystem"]), "args": [str(git_repo)]}}}))
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "mcp__filesystem__read_text_file",
                                  "arguments": {"path": str(git_repo / "inventory.txt")}}]),
        ScriptedTurn(text="There are 4417 widgets in stock."),
    )
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "-p", "How many widgets are in stock?",
         "--trust-project", "--output-format", "json", "--model", "openai/fake-model",
         "--api-base", fake_model.openai_base],
        cwd=git_repo, capture_output=True, text=True, timeout=120,
        env={**__import__("os").environ, "FAKE_API_KEY": "sk-test"},
    )
    assert out.returncode == 0, out.stderr
    first, second = fake_model.requests
    system = first["messages"][0]["content"]
    assert "- filesystem: 14 tools" in system
    assert "mcp__filesystem__read_text_file" in tool_names(first)
    assert tool_results(second) == ["widgets: 4417 in stock\n"]
    assert json.loads(out.stdout)["result"] == "There are 4417 widgets in stock."


async def test_user_server_write_tool_asks_in_default_mode(
    tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_user_config(server_toml("notes", [str(FIXTURES / "notes_server.py"), str(tmp_path)]))
    (tmp_path / "notes.txt").write_text("ship on friday\n")
    approver = RecordingApprover("deny")
    session = session_for(tmp_path, fake_model, monkeypatch, approver=approver)
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "mcp__notes__read_notes", "arguments": {}}]),
        ScriptedTurn(tool_calls=[{"name": "mcp__notes__add_note",
                                  "arguments": {"text": "call the client"}}]),
        ScriptedTurn(text="Could not add it."),
    )
    try:
        await session.start()
        result = await session.submit("read the notes and add one")
    finally:
        await session.close()
    assert result.status == "done"
    system = fake_model.requests[0]["messages"][0]["content"]
    assert ("- notes: 2 tools - Team notes kept in notes.txt: read and append them."
            in system)
    # the read-only tool ran without asking; the unannotated one asked, and was not run
    assert tool_results(fake_model.requests[1]) == ["ship on friday\n"]
    assert [r.tool for r in approver.requests] == ["mcp__notes__add_note"]
    assert "not known to be read-only" in approver.requests[0].reason
    assert (tmp_path / "notes.txt").read_text() == "ship on friday\n"
    assert tool_results(fake_model.requests[2])[-1].startswith("Denied")


@pytest.mark.parametrize("mode", ["bypass", "plan"])
async def test_write_tool_runs_in_bypass_and_is_refused_in_plan(
    mode: str, tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_user_config(server_toml("notes", [str(FIXTURES / "notes_server.py"), str(tmp_path)]))
    approver = RecordingApprover("allow_once")
    session = session_for(tmp_path, fake_model, monkeypatch, approver=approver, mode=mode)
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "mcp__notes__add_note",
                                  "arguments": {"text": "call the client"}}]),
        ScriptedTurn(text="ok"),
    )
    try:
        await session.start()
        await session.submit("add a note")
    finally:
        await session.close()
    result = tool_results(fake_model.requests[1])[-1]
    assert approver.requests == []  # neither mode asks
    if mode == "bypass":
        assert result == "added"
        assert (tmp_path / "notes.txt").read_text() == "call the client\n"
    else:
        assert "Plan mode is on" in result
        assert not (tmp_path / "notes.txt").exists()


async def test_server_agents_config_decides_who_gets_its_tools(
    tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`agents = ["code"]`: the orchestrator is neither offered nor told about the server; the
    code agent gets its tools (and may call them: the config grants them, bypass allows)."""
    write_user_config(server_toml("notes", [str(FIXTURES / "notes_server.py"), str(tmp_path)],
                                  'agents = ["code"]\n'))
    session = session_for(tmp_path, fake_model, monkeypatch, approver=RecordingApprover(),
                          mode="bypass")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "add the note 'release' with the notes server"}}]),
        ScriptedTurn(tool_calls=[{"name": "mcp__notes__add_note",
                                  "arguments": {"text": "release"}}]),
        ScriptedTurn(text=json.dumps({"summary": "added the note", "files_modified": []})),
        ScriptedTurn(text="Done."),
    )
    try:
        await session.start()
        await session.submit("add the note 'release'")
    finally:
        await session.close()
    orchestrator, code = fake_model.requests[0], fake_model.requests[1]
    assert not any(n.startswith("mcp__") for n in tool_names(orchestrator))
    assert "notes" not in orchestrator["messages"][0]["content"]
    assert {"mcp__notes__add_note", "mcp__notes__read_notes"} <= tool_names(code)
    assert "- notes: 2 tools" in code["messages"][0]["content"]
    assert (tmp_path / "notes.txt").read_text() == "release\n"


async def test_many_tools_load_their_schemas_on_demand(
    tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """120 tools (~26k tokens of schemas) exceed 10% of a 128k window: the model sees short
    forms, a call with bad arguments gets the schema in its error, mcp_tool_schema gives it."""
    write_user_config(server_toml("inv", [str(FIXTURES / "many_tools_server.py")]))
    session = session_for(tmp_path, fake_model, monkeypatch, approver=RecordingApprover(),
                          mode="bypass")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "mcp__inv__inventory_007",
                                  "arguments": {"quantity": "two"}}]),
        ScriptedTurn(tool_calls=[{"name": "mcp_tool_schema",
                                  "arguments": {"names": ["mcp__inv__inventory_007"]}}]),
        ScriptedTurn(tool_calls=[{"name": "mcp__inv__inventory_007",
                                  "arguments": {"sku": "ABC-1", "quantity": 2}}]),
        ScriptedTurn(text="ABC-1 is in stock."),
    )
    try:
        await session.start()
        await session.submit("is ABC-1 in stock?")
        mcp_table = (await session.run_command("/mcp")).text
        context = (await session.run_command("/context")).text
    finally:
        await session.close()
    first = fake_model.requests[0]
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert len([n for n in offered if n.startswith("mcp__inv__")]) == 120
    assert "mcp_tool_schema" in offered
    assert offered["mcp__inv__inventory_007"]["parameters"] == {"type": "object",
                                                               "properties": {}}
    assert "call mcp_tool_schema" in first["messages"][0]["content"]
    bad, schema, good = (tool_results(fake_model.requests[i])[-1] for i in (1, 2, 3))
    assert bad.startswith("invalid arguments for mcp__inv__inventory_007")
    assert '"sku"' in bad and "required" in bad
    loaded = json.loads(schema)
    assert loaded[0]["name"] == "mcp__inv__inventory_007"
    assert loaded[0]["parameters"]["required"] == ["sku"]
    assert good == "inventory_007: sku=ABC-1 warehouse=main quantity=2"
    row = next(line for line in mcp_table.splitlines() if line.startswith("| inv "))
    tokens = int(row.split("|")[5].split()[0].replace(",", ""))
    assert tokens > 12_800 and "(on demand)" in row
    assert "tools: mcp inv (short form" in context


async def test_schemas_stay_whole_under_the_share(
    tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_user_config(server_toml("inv", [str(FIXTURES / "many_tools_server.py"), "5"])
                      + "[mcp]\nschema_share = 0.5\n")
    session = session_for(tmp_path, fake_model, monkeypatch, approver=RecordingApprover())
    fake_model.script(ScriptedTurn(text="hi"))
    try:
        await session.start()
        await session.submit("hello")
    finally:
        await session.close()
    offered = {t["function"]["name"]: t["function"] for t in fake_model.requests[0]["tools"]}
    assert "mcp_tool_schema" not in offered
    assert offered["mcp__inv__inventory_001"]["parameters"]["required"] == ["sku"]


async def test_schemas_under_the_share_by_their_bytes_load_no_tokenizer(
    tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five tools' schemas are a few KB, far under 10% of the window: the UI process is spared
    the tokenizer (24 MB) that counting them would load; 120 tools' are counted."""
    from valarmind_tui.core import tokenizer

    asked: list[str] = []
    real = tokenizer.encoding
    monkeypatch.setattr(tokenizer, "encoding", lambda name="cl100k_base": (
        asked.append(name), real(name))[1])
    write_user_config(server_toml("inv", [str(FIXTURES / "many_tools_server.py"), "5"]))
    session = session_for(tmp_path, fake_model, monkeypatch, approver=RecordingApprover())
    try:
        await session.start()
        offered = len(session.mcp.tools())
    finally:
        await session.close()
    assert offered == 5 and not session.mcp.on_demand
    assert asked == []
