"""McpManager against real servers: filesystem (npm), git (PyPI), a tiny Python probe."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import Notice
from valarmind_tui.mcp_client.config_files import server_configs
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.safety.child_env import ENV_ALLOWLIST
from valarmind_tui.settings.config import McpServerConfig, McpSettings
from valarmind_tui.tools.base import Risk, ToolContext
from valarmind_tui.tools.registry import ToolRegistry


def _manager(root: Path, servers: dict[str, McpServerConfig], **kw: object) -> tuple[
        McpManager, list[Notice]]:
    bus = EventBus()
    notices: list[Notice] = []
    bus.add_listener(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    return McpManager(McpSettings(startup_timeout_s=30), root, bus, servers=servers, **kw), notices


def test_servers_come_from_config_and_mcp_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    monkeypatch.setenv("DOCS_TOKEN", "tok-123")
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "docs": {"command": "npx", "args": ["docs-server"], "env": {"TOKEN": "${DOCS_TOKEN}"},
                 "toolAllowlist": ["search"]},
        "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
        "fs": {"command": "from-json"},
    }}))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-them")
    settings = McpSettings(servers={"fs": McpServerConfig(command="from-config")},
                           project_env=["DOCS_TOKEN"])
    assert set(server_configs(settings, tmp_path)) == {"fs"}  # untrusted: .mcp.json unread
    configs = server_configs(settings, tmp_path, trusted=True)
    assert configs["docs"].env == {"TOKEN": "tok-123"}
    assert configs["docs"].tool_allowlist == ["search"]
    assert configs["remote"].url == "http://127.0.0.1:9/mcp"
    assert configs["fs"].command == "from-config"  # config wins over .mcp.json


def test_mcp_json_expands_only_the_names_the_user_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-them")
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {
        "command": "srv", "args": ["--key=${OPENAI_API_KEY}"],
        "env": {"K": "${OPENAI_API_KEY:-none}"}, "envPassthrough": ["OPENAI_API_KEY"]}}}))
    config = server_configs(McpSettings(), tmp_path, trusted=True)["x"]
    assert config.args == ["--key="] and config.env == {"K": "none"}
    assert config.env_passthrough == []


async def test_filesystem_and_git_listed_filtered_called(
    git_repo: Path, npm_servers: dict[str, Path], git_server_cmd: str
) -> None:
    manager, notices = _manager(git_repo, {
        "fs": McpServerConfig(command=str(npm_servers["filesystem"]), args=[str(git_repo)],
                              tool_allowlist=["read_text_file", "list_directory",
                                              "directory_tree"]),
        "git": McpServerConfig(command=git_server_cmd, args=["--repository", str(git_repo)]),
    }, user_servers={"fs", "git"})  # configured by the user: their annotations are believed
    try:
        started = time.perf_counter()
        states = await manager.start()
        elapsed = time.perf_counter() - started
        assert states == {"fs": "ready", "git": "ready"}, notices
        registry = ToolRegistry()
        names = manager.register_into(registry, {"fs": ["read_text_file", "list_directory"]})
        # the agent's override wins for fs; git has no allowlist: all of its tools
        assert {n for n in names if n.startswith("mcp__fs__")} == {
            "mcp__fs__read_text_file", "mcp__fs__list_directory"}
        assert "mcp__fs__write_file" not in registry
        assert "mcp__git__git_status" in registry and "mcp__git__git_log" in registry
        read = registry.get("mcp__fs__read_text_file")
        assert read is not None and read.risk is Risk.READ  # readOnlyHint honoured
        schema = read.schema()["function"]["parameters"]
        assert "path" in schema["properties"]
        ctx = ToolContext(project_root=git_repo)
        result = await read.run(read.parse({"path": str(git_repo / "app.py")}), ctx)
        assert "Hello" in result.output and not result.is_error
        (git_repo / "app.py").write_text("changed\n")
        status = registry.get("mcp__git__git_status")
        result = await status.run(status.parse({"repo_path": str(git_repo)}), ctx)
        assert "app.py" in result.output
        rows = {r.name: r for r in manager.status()}
        assert rows["fs"].tools >= 10 and rows["git"].tools >= 10
        # parallel: the whole start is not the sum of the two
        assert elapsed < rows["fs"].start_s + rows["git"].start_s
    finally:
        await manager.close()
    assert all(r.state == "closed" for r in manager.status())


async def test_api_key_never_reaches_a_stdio_server(
    tmp_path: Path, probe_server: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("SOME_TOKEN", "tok-passed")
    monkeypatch.setenv("NODE_PATH", "/opt/node")
    manager, _ = _manager(tmp_path, {"probe": McpServerConfig(
        command=probe_server[0], args=probe_server[1:], env_passthrough=["SOME_TOKEN"],
        env={"EXPLICIT": "yes"})})
    try:
        await manager.start()
        result = await manager.call_tool("probe", "env", {})
    finally:
        await manager.close()
    env = json.loads(result.output)
    assert "sk-secret" not in result.output and "OPENAI_API_KEY" not in env
    assert env["SOME_TOKEN"] == "tok-passed" and env["EXPLICIT"] == "yes"
    assert env["NODE_PATH"] == "/opt/node" and env["HOME"] == os.environ["HOME"]
    assert set(env) <= ENV_ALLOWLIST | {"SOME_TOKEN", "EXPLICIT"} | {
        "LC_CTYPE"}  # Python may set LC_CTYPE itself when coercing the C locale


async def test_faults_are_notices_and_the_session_goes_on(
    tmp_path: Path, probe_server: list[str]
) -> None:
    manager, notices = _manager(tmp_path, {
        "missing": McpServerConfig(command=str(tmp_path / "no-such-server")),
        "dies": McpServerConfig(command="sh", args=["-c", "echo cannot start >&2; exit 3"]),
        "probe": McpServerConfig(command=probe_server[0], args=probe_server[1:]),
    })
    try:
        states = await manager.start()
        assert states == {"missing": "failed", "dies": "failed", "probe": "ready"}
        text = "\n".join(n.message for n in notices)
        assert "'missing' failed to start: command not found" in text
        assert "'dies' failed to start" in text and "cannot start" in text
        pid = int((await manager.call_tool("probe", "pid", {})).output)
        import asyncio

        call = asyncio.create_task(manager.call_tool("probe", "hang", {"seconds": 30}))
        await asyncio.sleep(0.5)
        os.kill(pid, signal.SIGKILL)
        result = await asyncio.wait_for(call, 10)
        assert result.is_error and "crashed" in result.output
        assert any("'probe' crashed" in n.message and n.level == "error" for n in notices)
        assert {r.name: r.state for r in manager.status()}["probe"] == "crashed"
        # next use restarts it
        new_pid = int((await manager.call_tool("probe", "pid", {})).output)
        assert new_pid != pid
        row = {r.name: r for r in manager.status()}["probe"]
        assert row.state == "ready" and row.restarts == 1
        failed = await manager.call_tool("missing", "anything", {})
        assert failed.is_error and "command not found" in failed.output
    finally:
        await manager.close()


async def test_prompts_and_resources(tmp_path: Path, npm_servers: dict[str, Path],
                                     probe_server: list[str]) -> None:
    manager, _ = _manager(tmp_path, {
        "probe": McpServerConfig(command=probe_server[0], args=probe_server[1:]),
        "everything": McpServerConfig(command=str(npm_servers["everything"])),
    })
    try:
        await manager.start()
        prompts = {p.command: p for p in manager.prompts()}
        greet = prompts["mcp__probe__greet"]
        assert greet.arguments == (("name", True, ""),)
        assert await manager.get_prompt("probe", "greet", {"name": "Ada"}) == \
            "Please greet Ada warmly."
        resources = manager.resources()
        server, resource = next((s, r) for s, r in resources if s == "everything")
        text = await manager.read_resource(server, resource.uri)
        assert text
    finally:
        await manager.close()


async def test_streamable_http_server(tmp_path: Path, npm_servers: dict[str, Path],
                                      http_process: list) -> None:
    import subprocess

    from tests.mcp.conftest import free_port, wait_for_port

    port = free_port()
    proc = subprocess.Popen([str(npm_servers["everything"]), "streamableHttp"],
                            env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    http_process.append(proc)
    wait_for_port(port, proc)
    manager, notices = _manager(tmp_path, {"remote": McpServerConfig(
        url=f"http://127.0.0.1:{port}/mcp", tool_allowlist=["echo"])})
    try:
        assert await manager.start() == {"remote": "ready"}, notices
        registry = ToolRegistry()
        assert manager.register_into(registry) == ["mcp__remote__echo"]
        result = await manager.call_tool("remote", "echo", {"message": "over http"})
        assert "over http" in result.output
        assert manager.status()[0].transport == "http"
    finally:
        await manager.close()
