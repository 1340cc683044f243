"""Headless faces end to end: real subprocesses and git repos, LiteLLM against the fake server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn

pytestmark = pytest.mark.usefixtures("warm_runs")


def valarmind(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60):
    return subprocess.run(
        [sys.executable, "-m", "valarmind_tui", *args], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, **(env or {})}, timeout=timeout,
    )


def model_flags(fake_model: Any) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", fake_model.openai_base]


def configure_key(repo: Path, env_var: str = "FAKE_API_KEY") -> None:
    write_user_config(f'api_key_env = "{env_var}"\n')


def test_print_mode_reads_edits_and_answers(git_repo: Path, fake_model: Any) -> None:
    """The orchestrator reads, delegates the edit to the code agent, and answers."""
    configure_key(git_repo)
    code_result = json.dumps({"summary": "greet() now uses an f-string",
                              "files_modified": [{"path": "app.py"}]})
    fake_model.script(
        ScriptedTurn(status=429, headers={"Retry-After": "1"}),
        ScriptedTurn(text="Let me look.", tool_calls=[
            {"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "In app.py make greet() use an f-string"}}]),
        # the code agent's own loop
        ScriptedTurn(tool_calls=[{"name": "edit_file", "arguments": '{"path": "app.py", "old_'}]),
        ScriptedTurn(tool_calls=[{"name": "edit_file", "arguments": {
            "path": "app.py", "old_string": "'Hello ' + name",
            "new_string": "f'Hello, {name}!'"}}]),
        ScriptedTurn(text=code_result),
        # back in the orchestrator
        ScriptedTurn(text="Changed greet() to use an f-string."),
    )
    out = valarmind("-p", "modernise greet", "--output-format", "jsonl",
                    "--permission-mode", "accept-edits", *model_flags(fake_model), cwd=git_repo,
                    env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return f'Hello, {name}!'\n"
    events = [json.loads(line) for line in out.stdout.splitlines()]
    told = ("tool_call_started", "tool_call_finished", "notice", "prompt_finished",
            "agent_spawned", "agent_finished")
    story = [(e["type"], e.get("status") or e.get("name") or e.get("level"), e["agent_id"])
             for e in events if e["type"] in told]
    code = next(e["agent_id"] for e in events if e["type"] == "agent_spawned")
    assert story == [
        ("notice", "warning", "main"),  # the 429, waited out
        ("tool_call_started", "read_file", "main"), ("tool_call_finished", "ok", "main"),
        ("tool_call_started", "delegate", "main"),
        ("agent_spawned", "code", code),
        ("tool_call_started", "edit_file", code), ("tool_call_finished", "error", code),  # bad JSON
        ("tool_call_started", "edit_file", code), ("tool_call_finished", "ok", code),
        ("agent_finished", "done", code),
        ("tool_call_finished", "ok", "main"),
        ("prompt_finished", "done", "main"),
    ]
    spawned = next(e for e in events if e["type"] == "agent_spawned")
    assert spawned["parent_id"] == "main"
    assert events[-1]["text"] == "Changed greet() to use an f-string."
    assert any(e["type"] == "text_delta" for e in events)
    diff = [e for e in events if e["type"] == "tool_call_finished" and e["name"] == "edit_file"]
    assert "+    return f'Hello, {name}!'" in diff[-1]["diff"]


def test_print_mode_default_permission_denies_writes(git_repo: Path, fake_model: Any) -> None:
    configure_key(git_repo)
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "touch pwned"}}]),
        ScriptedTurn(text="Not allowed to run commands."),
    )
    out = valarmind("-p", "run it", "--output-format", "json", *model_flags(fake_model),
                    cwd=git_repo, env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "done"
    assert summary["result"] == "Not allowed to run commands."
    assert not (git_repo / "pwned").exists()


def test_missing_key_fails_before_any_request(git_repo: Path, fake_model: Any) -> None:
    configure_key(git_repo, "MY_PROVIDER_KEY")
    out = valarmind("-p", "hi", *model_flags(fake_model), cwd=git_repo)
    assert out.returncode == 2
    assert "MY_PROVIDER_KEY" in out.stderr
    assert fake_model.requests == []


def test_malformed_config_names_file_line_key(git_repo: Path) -> None:
    (git_repo / ".valarmind").mkdir()
    (git_repo / ".valarmind/config.toml").write_text('model = "x"\nmax_turns = "many"\n')
    out = valarmind("-p", "hi", "--trust-project", cwd=git_repo)
    assert out.returncode == 2
    assert ".valarmind/config.toml:2" in out.stderr
    assert "max_turns" in out.stderr


def test_runner_profile_writes_output(git_repo: Path, fake_model: Any, tmp_path: Path) -> None:
    (git_repo / "external-agents.json").write_text(json.dumps({"agents": {"kimi-review": {
        "provider": "openai-compat", "model": "fake-model", "maxTurns": 5}}}))
    write_user_config('api_key_env = "KIMI_API_KEY"\n')
    prompt = tmp_path / "review.md"
    prompt.write_text("You review documents adversarially.")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "README.md"}}]),
        ScriptedTurn(text="## Review\nThe README is one line long."),
    )
    output = tmp_path / "out" / "review.txt"
    out = valarmind("run", "--agent", "kimi-review", "--trust-project", "--api-base",
                    fake_model.openai_base, "--prompt", str(prompt), "--output",
                    str(output), "--", "README.md", cwd=git_repo, env={"KIMI_API_KEY": "sk-k"})
    assert out.returncode == 0, out.stderr
    assert output.read_text() == "## Review\nThe README is one line long.\n"
    first = fake_model.requests[0]
    assert first["messages"][0] == {"role": "system",
                                    "content": "You review documents adversarially."}
    assert "README.md" in first["messages"][1]["content"]
    tools = {t["function"]["name"] for t in first["tools"]}
    assert "read_file" in tools and "write_file" not in tools and "bash" not in tools


def test_runner_incomplete_exit_3(git_repo: Path, fake_model: Any, tmp_path: Path) -> None:
    write_user_config(
        f'[profiles.short]\nmodel = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
        'api_key_env = "FAKE_API_KEY"\nmax_turns = 2\n')
    prompt = tmp_path / "p.md"
    prompt.write_text("Look around.")
    call = {"name": "glob", "arguments": {"pattern": "*"}}
    fake_model.script(ScriptedTurn(text="first", tool_calls=[call]),
                      ScriptedTurn(text="second", tool_calls=[call]))
    output = tmp_path / "o.md"
    out = valarmind("run", "--agent", "short", "--prompt", str(prompt), "--output", str(output),
                    cwd=git_repo, env={"FAKE_API_KEY": "sk"})
    assert out.returncode == 3, out.stderr
    assert output.read_text().startswith("## INCOMPLETE")


def test_runner_usage_errors(git_repo: Path, tmp_path: Path) -> None:
    write_user_config('[profiles.reviewer]\nmodel = "openai/x"\n')
    prompt = tmp_path / "p.md"
    prompt.write_text("x")
    out = valarmind("run", "--agent", "nope", "--prompt", str(prompt), "--output", "o",
                    cwd=git_repo)
    assert out.returncode == 2
    assert "unknown agent 'nope'" in out.stderr and "reviewer" in out.stderr
    out = valarmind("run", "--agent", "reviewer", "--prompt", str(tmp_path / "missing.md"),
                    "--output", "o", cwd=git_repo)
    assert out.returncode == 2
    assert "prompt file not found" in out.stderr


def test_runner_starts_exactly_the_profiles_mcp_servers(
    git_repo: Path, fake_model: Any, tmp_path: Path
) -> None:
    git_server = {"command": sys.executable, "args": ["-m", "mcp_server_git"],
                  "toolAllowlist": ["git_status", "git_log"]}
    (git_repo / "external-agents.json").write_text(json.dumps({
        "agents": {"auditor": {"model": "fake-model", "mcpServers": ["git"],
                               "toolOverrides": {"git": ["git_status"]}}},
        "mcpServers": {"git": git_server,
                       "never": {"command": "definitely-not-a-command-xyz"}}}))
    prompt = tmp_path / "p.md"
    prompt.write_text("Audit the repository state.")
    (git_repo / "new.txt").write_text("untracked\n")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "mcp__git__git_status",
                                  "arguments": {"repo_path": str(git_repo)}}]),
        ScriptedTurn(text="One untracked file."),
    )
    output = tmp_path / "o.md"
    write_user_config('api_key_env = "K"\n')
    out = valarmind("run", "--agent", "auditor", "--trust-project", "--api-base",
                    fake_model.openai_base, "--prompt", str(prompt), "--output",
                    str(output), cwd=git_repo, env={"K": "sk"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert output.read_text() == "One untracked file.\n"
    offered = {t["function"]["name"] for t in fake_model.requests[0]["tools"]}
    assert "mcp__git__git_status" in offered
    assert "mcp__git__git_log" not in offered  # the agent's override wins over the allowlist
    tool_result = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"][0]
    assert "new.txt" in tool_result["content"]
