"""`valarmind mcp serve` checked by a client we did not write: the MCP Inspector's CLI mode.

The Inspector lists the tools, calls each one with good and with bad arguments, and validates
every structuredContent against the tool's outputSchema (its SDK refuses a result that does not
fit). Over streamable HTTP (one server, every tool) and over stdio (a server per call, so fewer
calls); then the modes that think with a model that fails: the raw data still answers.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.mcp.conftest import REPO, VALARMIND, free_port, install_inspector, wait_for_port
from tests.mcp.server.test_serve import EXPECTED_TOOLS

CHANGE = "import os\n\ndef greet(name):\n    return 'Hi ' + name\n"
MAKEFILE = "lint:\n\t@echo lint-ok\n\ntest:\n\t@echo tests-ok\n"

# tool → (good arguments, what its raw data must hold)
GOOD: dict[str, dict[str, str]] = {
    "review": {},
    "search": {"query": "greet", "max_results": "5"},
    "init": {"write": "false"},
    "qa": {},
    "agent_delegate": {"goal": "find where people are greeted", "maxIterations": "3"},
    "agent_decide": {"question": "ship it?", "options": '["yes", "no", "later"]'},
    "agent_analyze": {"data": "errors: 3, warnings: 12", "focus": "errors"},
    "agent_extract": {"content": "Ada, 36", "schema": '{"type": "object"}'},
    "agent_classify": {"content": "crash on start", "categories": '["bug", "feature"]'},
    "agent_summarize": {"content": "one two three four", "max_words": "3"},
    "agent_generate": {"instructions": "a hello function", "format": "python"},
    "agent_compare": {"items": '["vim", "emacs"]', "criteria": '["speed"]'},
}

# tool → (bad arguments, the message the caller must read). The Inspector turns a value into
# the schema's type (a non-JSON array stays a string, "abc" as a number is sent as null), so
# these are what a careless client really sends.
BAD: dict[str, tuple[dict[str, str], str]] = {
    "review": ({"paths": "app.py"},
               'paths: Input should be a valid list (got str \'app.py\'); send an array such '
               'as ["app.py"]'),
    "search": ({"query": "greet", "max_results": "abc"},
               "max_results: Input should be a valid integer (got NoneType None)"),
    "init": ({"force": "true"}, "force: unknown argument"),
    "qa": ({"command": "rm -rf /"}, "command: unknown argument"),
    "agent_delegate": ({"goal": "x", "maxIterations": "500"},
                       "maxIterations: Input should be less than or equal to 20"),
    "agent_decide": ({"question": "ship it?", "options": "maybe"},
                     "options: Input should be a valid list"),
    "agent_analyze": ({"focus": "errors"}, "data: required"),
    "agent_extract": ({"content": "Ada", "schema": "not json"},
                      "schema: Input should be a valid dictionary"),
    "agent_classify": ({"content": "crash", "categories": "bug"},
                       "categories: Input should be a valid list"),
    "agent_summarize": ({"content": "text", "max_words": "0"},
                        "max_words: Input should be greater than or equal to 1"),
    "agent_generate": ({"format": "python"}, "instructions: required"),
    "agent_compare": ({"items": "[]"}, "items: List should have at least 1 item"),
}


def env(**extra: str) -> dict[str, str]:
    """The test's environment (isolated HOME, no provider keys) running this checkout's code."""
    return {**os.environ, "PYTHONPATH": str(REPO), **extra}


def inspect(target: list[str], method: str, tool: str | None = None,
            args: dict[str, str] | None = None, extra_env: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """One Inspector CLI run; its JSON answer."""
    cmd = [str(install_inspector()), "--cli", *target, "--method", method]
    if tool:
        cmd += ["--tool-name", tool]
    for key, value in (args or {}).items():
        cmd += ["--tool-arg", f"{key}={value}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180,
                         env=env(**(extra_env or {})))
    assert out.returncode == 0, f"inspector failed ({out.returncode}):\n{out.stderr[-3000:]}"
    return json.loads(out.stdout)


def serve(repo: Path, *flags: str) -> list[str]:
    return [VALARMIND, "mcp", "serve", "--cwd", str(repo), *flags]


def changed_repo(repo: Path) -> Path:
    (repo / "app.py").write_text(CHANGE)
    (repo / "Makefile").write_text(MAKEFILE)
    return repo


def assert_raw_data(tool: str, data: dict[str, Any]) -> None:
    """What each tool gathered without a model, from the change in `changed_repo`."""
    raw = data["raw_data"]
    if tool == "review":
        assert "app.py" in raw["files"] and "+import os" in raw["diff"]
        assert any(f["message"].startswith("F401") for f in raw["findings"])
    elif tool == "search":
        assert raw["matches"][0] == {"path": "app.py", "line": 3, "text": "def greet(name):"}
    elif tool == "init":
        assert raw["draft"].startswith("# repo") and raw["drafted_without_model"] is True
    elif tool == "qa":
        assert [c["command"] for c in raw["commands"]] == ["make lint", "make test"]
    else:
        for key, value in GOOD[tool].items():
            sent = json.loads(value) if value[:1] in "[{" or value.isdigit() else value
            assert raw["input"][key] == sent
        texts = [v for v in GOOD[tool].values() if v[:1] not in "[{" and not v.isdigit()]
        assert all(text in raw["task"]["prompt"] for text in texts or ['"vim"'])
        if tool == "agent_delegate":
            assert "app.py" in raw["project_tree"] and data["tools_executed"] == ["tree_view"]


@pytest.fixture(scope="module")
def http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One `valarmind mcp serve --http` over a repository with an uncommitted change."""
    repo = tmp_path_factory.mktemp("http") / "repo"
    repo.mkdir()
    git = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=git)
    (repo / "README.md").write_text("# demo\n")
    (repo / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=git)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True, env=git)
    changed_repo(repo)
    port = free_port()
    proc = subprocess.Popen(serve(repo, "--http", str(port)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env())
    try:
        wait_for_port(port, proc, timeout_s=60)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_http_tools_list(http_url: str) -> None:
    tools = {t["name"]: t for t in inspect([http_url], "tools/list")["tools"]}
    assert set(tools) == EXPECTED_TOOLS
    for tool in tools.values():
        assert tool["outputSchema"]["required"] == ["mode", "summary", "stopReason",
                                                    "execution_time_ms", "tools_executed",
                                                    "usage"]
        assert tool["inputSchema"]["additionalProperties"] is False
    assert tools["review"]["inputSchema"]["properties"]["paths"]["type"] == "array"
    assert tools["init"]["inputSchema"]["properties"]["write"]["type"] == "boolean"
    assert tools["review"]["annotations"]["readOnlyHint"] is True


@pytest.mark.parametrize("tool", sorted(GOOD))
def test_http_each_tool_answers_with_its_raw_data(http_url: str, tool: str) -> None:
    result = inspect([http_url], "tools/call", tool, GOOD[tool])
    assert result["isError"] is False, result["content"]
    data = result["structuredContent"]
    assert data["mode"] == "raw" and result["_meta"] == {"mode": "raw"}
    assert data["stopReason"] == "endTurn" and "fallback_reason" not in data
    assert data["usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0}
    assert isinstance(data["execution_time_ms"], int) and data["summary"]
    assert_raw_data(tool, data)


@pytest.mark.parametrize("tool", sorted(BAD))
def test_http_each_tool_rejects_bad_arguments(http_url: str, tool: str) -> None:
    args, message = BAD[tool]
    result = inspect([http_url], "tools/call", tool, args)
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith(f"invalid arguments for {tool}: ")
    assert message in result["content"][0]["text"]


def test_stdio_list_and_calls(git_repo: Path) -> None:
    """Over stdio each Inspector run starts a server, so a few runs: the list, a project tool
    with good arguments, an agent tool with bad ones."""
    repo = changed_repo(git_repo)
    names = {t["name"] for t in inspect(serve(repo), "tools/list")["tools"]}
    assert names == EXPECTED_TOOLS
    good = inspect(serve(repo), "tools/call", "review", GOOD["review"])
    assert good["isError"] is False and good["structuredContent"]["mode"] == "raw"
    assert_raw_data("review", good["structuredContent"])
    args, message = BAD["agent_classify"]
    bad = inspect(serve(repo), "tools/call", "agent_classify", args)
    assert bad["isError"] is True and message in bad["content"][0]["text"]


def test_configured_model_without_its_key_gives_working_tools(git_repo: Path) -> None:
    """An IDE starting the server with the user's model but not the key: raw mode, with why."""
    repo = changed_repo(git_repo)
    result = inspect(serve(repo, "--model", "anthropic/claude-sonnet-4-5"), "tools/call",
                     "search", GOOD["search"])
    data = result["structuredContent"]
    assert result["isError"] is False and data["mode"] == "raw"
    assert data["fallback_reason"] == ("own model not usable: no API key for "
                                       "anthropic/claude-sonnet-4-5: set ANTHROPIC_API_KEY in "
                                       "the environment")
    assert_raw_data("search", data)


def test_dead_model_endpoint_falls_back_to_the_gathered_data(git_repo: Path) -> None:
    """Own model behind a closed port: review still returns the diff and the lint findings."""
    repo = changed_repo(git_repo)
    dead = f"http://127.0.0.1:{free_port()}/v1"
    result = inspect(serve(repo, "--model", "openai/fake-model", "--api-base", dead),
                     "tools/call", "review", {},
                     extra_env={"OPENAI_API_KEY": "sk-test", "VALARMIND_MAX_RETRY_WAIT_S": "0"})
    data = result["structuredContent"]
    assert result["isError"] is False and data["mode"] == "raw"
    assert data["stopReason"] == "modelError"
    assert data["fallback_reason"].startswith("own model openai/fake-model failed: ")
    assert "Connection" in data["fallback_reason"] or "connect" in data["fallback_reason"]
    assert_raw_data("review", data)
    assert "+import os" in result["content"][0]["text"]  # the diff is in the text too


def test_model_answering_500_falls_back_for_an_agent_tool(git_repo: Path,
                                                          fake_model: Any) -> None:
    fake_model.script(ScriptedTurn(status=500, error="upstream exploded",
                                   headers={"x-should-retry": "false"}))
    repo = changed_repo(git_repo)
    result = inspect(serve(repo, "--model", "openai/fake-model", "--api-base",
                           fake_model.openai_base),
                     "tools/call", "agent_summarize", GOOD["agent_summarize"],
                     extra_env={"OPENAI_API_KEY": "sk-test"})
    data = result["structuredContent"]
    assert result["isError"] is False and data["mode"] == "raw"
    assert "upstream exploded" in data["fallback_reason"]
    assert_raw_data("agent_summarize", data)
    assert len(fake_model.requests) == 1  # the model was really asked


def test_time_limit_returns_an_error_with_what_was_gathered(git_repo: Path) -> None:
    (git_repo / "Makefile").write_text("lint:\n\t@echo lint-ok\n\ntest:\n\tsleep 30\n")
    result = inspect(serve(git_repo, "--permission-mode", "bypass", "--tool-timeout", "6"),
                     "tools/call", "qa", {"run": "true"})
    data = result["structuredContent"]
    assert result["isError"] is True and data["stopReason"] == "timeout"
    assert data["error"].startswith("qa: the time limit of 6 s ran out")
    assert [c["command"] for c in data["raw_data"]["commands"]] == ["make lint", "make test"]
    assert data["raw_data"]["results"][0]["command"] == "make lint"
    assert data["raw_data"]["results"][0]["passed"] is True
    assert "data gathered so far" in result["content"][0]["text"]
