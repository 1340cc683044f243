"""One environment rule for every child: tools, hooks, git, the sandbox and MCP servers."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.hooks.process import hook_env
from valarmind_tui.mcp_client.env import child_env as mcp_env
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.settings.config import McpServerConfig

OURS = {
    "PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
    "ANTHROPIC_API_KEY": "sk-ant", "GITHUB_TOKEN": "ghp_x", "AWS_SECRET_ACCESS_KEY": "aws",
    "BASH_FUNC_x%%": "() { echo pwned; }", "RANDOM_APP_SETTING": "x",
}


def test_tools_and_servers_share_the_allowlist_and_no_secret_passes(
    tmp_path: Path, monkeypatch
) -> None:
    for name, value in OURS.items():
        monkeypatch.setenv(name, value)
    tool = child_env(tmp_path)
    server = mcp_env(McpServerConfig(command="x"))
    hook = hook_env(tmp_path)
    for env in (tool, server, hook):
        assert env["LANG"] == "C.UTF-8" and env["LC_ALL"] == "C.UTF-8"
        assert not {"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
                    "BASH_FUNC_x%%", "RANDOM_APP_SETTING"} & set(env)
    assert tool["PWD"] == str(tmp_path) and tool["GIT_TERMINAL_PROMPT"] == "0"
    assert hook["CLAUDE_PROJECT_DIR"] == str(tmp_path)


def test_a_server_gets_only_the_secret_it_names(monkeypatch) -> None:
    for name, value in OURS.items():
        monkeypatch.setenv(name, value)
    env = mcp_env(McpServerConfig(command="x", env_passthrough=["GITHUB_TOKEN"],
                                  env={"MODE": "ro"}))
    assert env["GITHUB_TOKEN"] == "ghp_x" and env["MODE"] == "ro"
    assert "ANTHROPIC_API_KEY" not in env and "AWS_SECRET_ACCESS_KEY" not in env


def test_an_exported_function_never_passes_even_when_named() -> None:
    env = child_env(passthrough=["F"], environ={"F": "() { evil; }", "PATH": "/bin"})
    assert env == {"PATH": "/bin"}
