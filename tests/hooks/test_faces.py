"""The same Claude Code PreToolUse script blocks through `valarmind -p` and `valarmind run` (real
subprocesses); `/hooks` says where each hook came from; a project's hooks need trust."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.hooks.conftest import hook_table, script
from tests.hooks.test_pre_tool_use import BLOCK_RM
from tests.test_headless import model_flags, valarmind
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings


def _blocked_in(request: dict[str, Any]) -> str:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"][-1]


def test_print_mode_runs_the_pre_tool_use_hook(
    git_repo: Path, tmp_path: Path, fake_model: Any
) -> None:
    hook = script(tmp_path, "block-rm.py", BLOCK_RM)
    write_user_config('api_key_env = "FAKE_API_KEY"\n' + hook_table("PreToolUse", hook, "Bash"))
    (git_repo / "build").mkdir()
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "qa", "task": "clean the build, then run the tests"}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "rm -rf build"}}]),
        ScriptedTurn(text=json.dumps({"summary": "could not clean", "passed": False,
                                      "checks": []})),
        ScriptedTurn(text="The hook refused rm -rf."),
    )
    out = valarmind("-p", "clean the build", "--output-format", "jsonl",
                    *model_flags(fake_model), cwd=git_repo, env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    assert (git_repo / "build").is_dir()
    assert "Blocked: rm -rf is not allowed here" in _blocked_in(fake_model.requests[2])
    events = [json.loads(line) for line in out.stdout.splitlines()]
    ran = [e for e in events if e["type"] == "hook_ran"]
    assert [(e["event"], e["outcome"], e["exit_code"]) for e in ran] == [
        ("PreToolUse", "blocked", 2)]
    assert ran[0]["command"] == str(hook) and ran[0]["duration_ms"] >= 0


def test_run_profile_runs_the_pre_tool_use_hook(
    git_repo: Path, tmp_path: Path, fake_model: Any
) -> None:
    hook = script(tmp_path, "block-rm.py", BLOCK_RM)
    write_user_config('api_key_env = "FAKE_API_KEY"\n[profiles.cleaner]\n'
                      'model = "openai/fake-model"\ntools = ["bash"]\n\n'
                      + hook_table("PreToolUse", hook, "Bash"))
    (git_repo / "build").mkdir()
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "rm -rf build"}}]),
        ScriptedTurn(text="Refused by the hook."),
    )
    prompt = tmp_path / "clean.md"
    prompt.write_text("Clean the build folder.")
    output = tmp_path / "out.txt"
    out = valarmind("run", "--agent", "cleaner", "--api-base", fake_model.openai_base,
                    "--prompt", str(prompt), "--output", str(output), cwd=git_repo,
                    env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    assert output.read_text() == "Refused by the hook.\n" and (git_repo / "build").is_dir()
    assert "Blocked: rm -rf is not allowed here" in _blocked_in(fake_model.requests[1])


async def test_hooks_command_lists_each_hook_and_its_file(git_repo: Path) -> None:
    user = write_user_config(hook_table("PreToolUse", "echo user", "Bash", timeout=5))
    project = git_repo / ".valarmind" / "config.toml"
    project.parent.mkdir()
    project.write_text(hook_table("PreToolUse", "echo project", "Edit|Write")
                       + hook_table("Stop", "echo stop"))
    untrusted = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    listed = await untrusted.run_command("/hooks")
    assert [h["command"] for h in listed.data["hooks"]] == ["echo user"]
    trusted = build_session(load_settings(git_repo, trusted=True), git_repo,
                            approver=PolicyApprover())
    listed = await trusted.run_command("/hooks")
    assert listed.ok
    assert [(h["event"], h["matcher"], h["command"], h["source"])
            for h in listed.data["hooks"]] == [
        ("PreToolUse", "Bash", "echo user", str(user)),
        ("PreToolUse", "Edit|Write", "echo project", str(project)),
        ("Stop", "", "echo stop", str(project)),
    ]
    assert f"from {project}" in listed.text and "timeout 5 s" in listed.text
    assert load_settings(git_repo, trusted=True).ignored_project_keys == ()


def test_a_bad_hooks_table_names_its_file_and_key(git_repo: Path) -> None:
    import pytest

    from valarmind_tui.core.errors import ConfigError

    path = write_user_config('[[hooks.PreToolUse]]\nmatcher = "Bash"\n'
                             '[[hooks.PreToolUse.hooks]]\ntype = "http"\ncommand = "x"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(git_repo)
    assert caught.value.file == str(path) and "hooks.PreToolUse.0.hooks.0.type" in str(caught.value)
    write_user_config('[[hooks.BeforeEverything]]\nmatcher = ""\n')
    with pytest.raises(ConfigError, match="hooks.BeforeEverything"):
        load_settings(git_repo)


async def test_the_readme_example_blocks_rm_rf(git_repo: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Hooks", 1)[1].split("```toml", 1)[1].split("```", 1)[0]
    write_user_config(section)
    (git_repo / "build").mkdir()
    session = build_session(load_settings(git_repo), git_repo,
                            approver=PolicyApprover(allow_execute=True))
    blocked = await session.run_shell("rm -rf build")
    assert blocked.is_error and "rm -rf is not allowed" in blocked.output
    assert (git_repo / "build").is_dir()
    assert [h.event for h in session.hooks.hooks] == ["PreToolUse", "PostToolUse"]


async def test_an_untrusted_repository_hooks_never_run(git_repo: Path, tmp_path: Path) -> None:
    planted = tmp_path / "pwned"
    project = git_repo / ".valarmind" / "config.toml"
    project.parent.mkdir()
    project.write_text(hook_table("SessionStart", f"touch {planted}")
                       + hook_table("PreToolUse", f"touch {planted}"))
    session = build_session(load_settings(git_repo), git_repo,
                            approver=PolicyApprover(allow_execute=True))
    await session.start()
    await session.run_shell("echo hi")
    await session.close()
    assert not planted.exists() and session.hooks.hooks == []


async def test_hooks_get_the_allowlisted_environment_without_keys(
    git_repo: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    dumped = tmp_path / "env.txt"
    write_user_config(hook_table("SessionStart", f"env > {dumped}"))
    session = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    await session.start()
    env = dict(line.split("=", 1) for line in dumped.read_text().splitlines() if "=" in line)
    assert env["CLAUDE_PROJECT_DIR"] == env["VALARMIND_PROJECT_DIR"] == str(git_repo)
    assert "sk-secret" not in dumped.read_text() and "ghp-secret" not in dumped.read_text()
    assert env["HOME"] and "PATH" in env


def test_the_plain_repl_runs_the_hook_on_a_persons_command(git_repo: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    hook = script(tmp_path, "block-rm.py", BLOCK_RM)
    write_user_config(hook_table("PreToolUse", hook, "Bash"))
    (git_repo / "build").mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
        input="!rm -rf build\n/hooks\n/quit\n", capture_output=True, text=True, timeout=120,
        env=dict(os.environ),
    )
    assert out.returncode == 0, out.stderr
    assert "Blocked: rm -rf is not allowed here" in out.stdout
    assert f"PreToolUse `Bash`: `{hook}`" in out.stdout
    assert (git_repo / "build").is_dir()


async def test_the_tui_runs_the_hook_on_a_persons_command(git_repo: Path, tmp_path: Path) -> None:
    from tests.ui.conftest import wait_for
    from valarmind_tui.faces.tui.app import ValarMindApp
    from valarmind_tui.faces.tui.widgets.messages import ShellOutput
    from valarmind_tui.settings.config import Settings

    hook = script(tmp_path, "block-rm.py", BLOCK_RM)
    settings = Settings(hooks={"PreToolUse": [{"matcher": "Bash",
                                               "hooks": [{"command": str(hook)}]}]})
    (git_repo / "build").mkdir()
    app = ValarMindApp(build_session(settings, git_repo), history_file=tmp_path / "history.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"!rm -rf build", "enter")
        block = await wait_for(pilot, lambda: next(iter(app.query(ShellOutput)), None))
        await wait_for(pilot, lambda: block.output is not None)
        assert "Blocked: rm -rf is not allowed here" in block.output
    assert (git_repo / "build").is_dir()
