"""Arguments from an MCP peer (or a model) reaching git as options, and MCP client tool names
and annotations a server chooses.

Server face: the `review` tool's target and paths, the `search` tool's query and glob, the
built-in git_diff and /review. Contained = a clear isError (or UsageError) and, checked on disk,
no file written. Client: names that break OpenAI-style APIs and readOnlyHint from a project's
server. Most attempts go through ValarMindMcpServer.call_tool in-process (the handler the real
server runs); a few through a real `valarmind mcp serve` over stdio.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.mcp.server.test_serve import stdio_session
from tests.security.conftest import SENTINEL
from valarmind_tui.agents.review.runner import run_review
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import UsageError
from valarmind_tui.faces.mcp_server.serve import ValarMindMcpServer
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.settings.config import KNOWN_KEYS, McpServerConfig, McpSettings, Settings
from valarmind_tui.tools.base import Risk, ToolContext
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.registry import ToolRegistry

SOURCE = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
LONG = "t" * 100


@pytest.fixture
def server(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> ValarMindMcpServer:
    """The server face in raw mode (no model: no key in the environment for this one)."""
    for name in KNOWN_KEYS:
        monkeypatch.delenv(name, raising=False)
    (git_repo / ".env").write_text(f"KEY={SENTINEL}\n")
    (git_repo / "app.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
    return ValarMindMcpServer(Settings(), git_repo)


async def call(server: ValarMindMcpServer, name: str, args: dict[str, Any]) -> tuple[bool, str]:
    async def report_progress(*_: Any) -> None:
        return None

    ctx = SimpleNamespace(session=SimpleNamespace(
        client_capabilities=None, can_send_request=False, report_progress=report_progress))
    result = await server.call_tool(ctx, name, args)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert SENTINEL not in text + repr(result.structured_content)
    return bool(result.is_error), text


def nothing_written(*paths: Path) -> None:
    for path in paths:
        assert not path.exists(), f"{path} was written"


# -- review: the target ---------------------------------------------------------------------
@pytest.mark.parametrize("target", [
    "--output={out}", "--output={out}..HEAD", "HEAD..--output={out}", "HEAD...--output={out}",
    "-p", "--upload-pack=touch {out}", "--ext-diff", "-c", "--no-index",
])
async def test_review_target_options_refused(server: ValarMindMcpServer, tmp_path: Path,
                                             target: str) -> None:
    out = tmp_path / "owned"
    is_error, text = await call(server, "review", {"target": target.format(out=out)})
    assert is_error and ("not accepted" in text or "not a ref" in text), text
    nothing_written(out)


@pytest.mark.parametrize("target", ["HEAD; touch {out}", "$(touch {out})", "`touch {out}`",
                                    "HEAD && touch {out}", "HEAD\ntouch {out}"])
async def test_review_target_shell_syntax(server: ValarMindMcpServer, tmp_path: Path,
                                          target: str) -> None:
    out = tmp_path / "pwned"
    is_error, text = await call(server, "review", {"target": target.format(out=out)})
    assert is_error and "not a" in text, text
    nothing_written(out)


async def test_review_range_to_a_missing_commit(server: ValarMindMcpServer) -> None:
    is_error, text = await call(server, "review", {"target": "HEAD..deadbeef"})
    assert is_error and "'deadbeef' is not a commit" in text


async def test_review_target_naming_a_blob(server: ValarMindMcpServer) -> None:
    subprocess.run(["git", "add", ".env"], cwd=server.root, check=True)
    is_error, text = await call(server, "review", {"target": ":.env"})
    assert is_error and "not a commit" in text


async def test_review_target_not_a_string(server: ValarMindMcpServer) -> None:
    is_error, text = await call(server, "review", {"target": ["--output=/tmp/x"]})
    assert is_error and "target: Input should be a valid string (got list" in text


async def test_review_a_real_range_still_works(server: ValarMindMcpServer) -> None:
    subprocess.run(["git", "commit", "-qam", "hi"], cwd=server.root, check=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"})
    is_error, text = await call(server, "review", {"target": "HEAD~1..HEAD"})
    assert not is_error and "+    return 'Hi ' + name" in text


# -- review: the paths ----------------------------------------------------------------------
@pytest.mark.parametrize("path", ["--output={out}", "-p", "../outside.py", "/etc/passwd"])
async def test_review_paths_refused(server: ValarMindMcpServer, tmp_path: Path,
                                    path: str) -> None:
    out = tmp_path / "owned"
    is_error, text = await call(server, "review", {"paths": [path.format(out=out)]})
    assert is_error and ("not accepted" in text or "outside the project" in text), text
    nothing_written(out)


async def test_review_path_that_looks_like_a_ref_stays_a_path(server: ValarMindMcpServer) -> None:
    is_error, text = await call(server, "review", {"paths": ["HEAD~1..HEAD"]})
    assert is_error and "not a file in the project" in text


# -- search ---------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    {"query": "--pre=touch {out}"}, {"query": "greet", "glob": "--pre=touch {out}"},
    {"query": "-f{out}"}, {"query": "--files"},
])
async def test_search_arguments_stay_arguments(server: ValarMindMcpServer, tmp_path: Path,
                                               args: dict[str, str]) -> None:
    out = tmp_path / "pwned"
    args = {k: v.format(out=out) for k, v in args.items()}
    await call(server, "search", args)
    nothing_written(out)


# -- the same through a real server ---------------------------------------------------------
async def test_real_server_review_output_option(git_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "owned"
    async with stdio_session(git_repo, env=SOURCE) as session:
        plain = await session.call_tool("review", {"target": f"--output={out}"})
        ranged = await session.call_tool("review", {"target": f"--output={out}..HEAD"})
    assert plain.is_error and ranged.is_error
    assert "options are not accepted" in plain.content[0].text
    nothing_written(out)


# -- the built-in git_diff and /review ------------------------------------------------------
@pytest.mark.parametrize("ref", ["--output={out}", "HEAD..--output={out}", "-p", "HEAD..nope"])
async def test_git_diff_tool_ref_refused(git_repo: Path, tmp_path: Path, ref: str) -> None:
    out = tmp_path / "owned"
    tool = builtin_tools().get("git_diff")
    assert tool is not None
    result = await tool.run(tool.parse({"ref": ref.format(out=out)}),
                            ToolContext(project_root=git_repo))
    assert result.is_error
    nothing_written(out)


@pytest.mark.parametrize("words", [["--output={out}..HEAD"], ["--output={out}"],
                                   ["--staged", "--output={out}"], ["HEAD..-p"]])
async def test_slash_review_words_refused(git_repo: Path, tmp_path: Path,
                                          words: list[str]) -> None:
    out = tmp_path / "owned"
    with pytest.raises(UsageError):
        await run_review(git_repo, [w.format(out=out) for w in words])
    nothing_written(out)


# -- the MCP client: names and annotations --------------------------------------------------
ODD_SERVER = textwrap.dedent(f'''
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    app = MCPServer("odd")

    @app.tool(name="do.thing", annotations=ToolAnnotations(read_only_hint=True))
    def do_thing() -> str:
        return "did the thing"

    @app.tool(name="do_thing")
    def do_thing_2() -> str:
        return "the other thing"

    @app.tool(name="{LONG}", annotations=ToolAnnotations(read_only_hint=True))
    def long_one() -> str:
        return "long"

    @app.tool(name="wipe disk!", annotations=ToolAnnotations(read_only_hint=True))
    def wipe() -> str:
        return "pretend read-only"

    app.run()
''')


@pytest.fixture
async def odd_tools(tmp_path: Path) -> Any:
    script = tmp_path / "odd_server.py"
    script.write_text(ODD_SERVER)
    config = McpServerConfig(command=sys.executable, args=[str(script)])
    managers = []

    async def start(user_servers: set[str]) -> ToolRegistry:
        manager = McpManager(McpSettings(startup_timeout_s=30), tmp_path, EventBus(),
                             servers={"my.server": config}, user_servers=user_servers)
        managers.append(manager)
        states = await manager.start()
        assert states == {"my.server": "ready"}
        registry = ToolRegistry()
        manager.register_into(registry)
        return registry

    yield start
    for manager in managers:
        await manager.close()


async def test_client_tool_names_are_valid_for_openai(odd_tools: Any) -> None:
    registry = await odd_tools(set())
    names = registry.names()
    assert len(names) == 4 and len(set(names)) == 4
    assert all(OPENAI_NAME.match(n) for n in names), names
    assert all(OPENAI_NAME.match(s["function"]["name"]) for s in registry.schemas())


async def test_client_dotted_names_call_the_original_tool(odd_tools: Any) -> None:
    registry = await odd_tools(set())
    by_original = {t.mcp_name: t for t in registry if hasattr(t, "mcp_name")}
    ctx = ToolContext(project_root=Path.cwd())
    for original, answer in (("do.thing", "did the thing"), ("do_thing", "the other thing"),
                             (LONG, "long")):
        tool = by_original[original]
        result = await tool.run(tool.parse({}), ctx)
        assert result.output == answer, (original, tool.name, result.output)
    assert by_original["do.thing"].name != by_original["do_thing"].name
    assert len(by_original[LONG].name) <= 64


async def test_client_project_server_annotations_not_believed(odd_tools: Any) -> None:
    registry = await odd_tools(set())  # e.g. from the project's .mcp.json
    assert {t.risk for t in registry} == {Risk.WRITE}


async def test_client_user_server_annotations_believed(odd_tools: Any) -> None:
    registry = await odd_tools({"my.server"})
    risks = {t.mcp_name: t.risk for t in registry if hasattr(t, "mcp_name")}
    assert risks["do.thing"] is Risk.READ and risks["do_thing"] is Risk.WRITE


# -- agent_delegate: what ran ----------------------------------------------------------------
async def test_delegate_reports_refused_tools_apart_from_those_that_ran(
        git_repo: Path, fake_model: Any) -> None:
    """The delegated agent (read-only) tries to write and to run a command, then reads: the
    client is told only read_file ran; the refused calls are listed as refused."""
    from tests.fakes.model_server import ScriptedTurn

    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
            "path": "owned.txt", "content": "x"}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "touch ran.txt"}}]),
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="greet is in app.py"),
    )
    async with stdio_session(git_repo, "--model", "openai/fake-model", "--api-base",
                             fake_model.openai_base, env={"OPENAI_API_KEY": "sk-test"},
                             ) as session:
        result = await session.call_tool("agent_delegate", {"goal": "find greet",
                                                            "maxIterations": 5})
    assert not result.is_error, result.content
    data = result.structured_content
    nothing_written(git_repo / "owned.txt", git_repo / "ran.txt")
    assert "write_file" not in data["tools_executed"]
    assert "bash" not in data["tools_executed"]
    assert "read_file" in data["tools_executed"]
    assert data["tools_refused"] == ["bash", "write_file"]
