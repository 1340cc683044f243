"""Attack: keep retrying a denied action until something lets it through.

Denials are counted for the whole session by agent kind and intent: spelling the command
another way, moving to another specialist instance, or waiting for the next prompt does not
reset them, and the third denial stops the WHOLE prompt (status `escalated`), not just the child.
Contained means the run stopped with `escalated` and the action never happened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.agents.loop import LoopDeps
from valarmind_tui.agents.orchestrator import Orchestrator
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import DenialEscalated
from valarmind_tui.core.events import AgentFinished
from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.settings.config import PermissionSettings, load_settings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools

SHELL_AGENT = """---
name: shell
description: runs shell commands for the test
tools: [bash]
permissions: {read: true, write: false, execute: true}
---
Run what you are asked.
"""
TOUCH_SPELLINGS = ["touch x", "/usr/bin/touch x", "sh -c 'touch x'", "env touch x",
                   "command touch x"]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def orchestrator(root: Path, fake_model: Any, gate: PermissionGate,
                 events: list[Any] | None = None) -> Orchestrator:
    from valarmind_tui.providers.litellm_provider import provider_from_settings

    settings = load_settings(root, trusted=True, model="openai/fake-model",
                             api_base=fake_model.openai_base, api_key_env="FAKE_API_KEY")
    bus = gate.bus or EventBus()
    if events is not None:
        bus.add_listener(events.append)
    deps = LoopDeps(provider=provider_from_settings(settings), tools=builtin_tools(), gate=gate,
                    bus=bus, ctx=ToolContext(project_root=root.resolve()))
    return Orchestrator(deps, AgentRegistry.load(root, settings),
                        model=settings.resolve_model(), settings=settings)


@pytest.fixture
def shell_agent(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    agents = git_repo / ".valarmind" / "agents"
    agents.mkdir(parents=True)
    (agents / "shell.md").write_text(SHELL_AGENT)
    return git_repo


async def gated(gate: PermissionGate, repo: Path, name: str, args: dict[str, Any],
                agent_id: str = "main") -> str:
    tool = builtin_tools().get(name)
    assert tool is not None
    ctx = ToolContext(project_root=repo, agent_id=agent_id)
    status, _ = await run_gated(tool, tool.parse(args), ctx, gate, AgentPermissions.full())
    return status


async def test_five_spellings_of_one_command_escalate(git_repo: Path) -> None:
    gate = PermissionGate(git_repo, PolicyApprover())
    with pytest.raises(DenialEscalated, match="touch"):
        for command in TOUCH_SPELLINGS:
            assert await gated(gate, git_repo, "bash", {"command": command}) == "denied"
    assert not (git_repo / "x").exists()


async def test_one_path_by_three_tools_escalates(git_repo: Path) -> None:
    gate = PermissionGate(git_repo, PolicyApprover(allow_writes=True, allow_execute=True),
                          mode=PermissionMode.BYPASS)
    attempts = [("write_file", {"path": ".mcp.json", "content": "{}"}),
                ("bash", {"command": "echo {} > .mcp.json"}),
                ("bash", {"command": "echo {} | tee .mcp.json"})]
    with pytest.raises(DenialEscalated, match=r"\.mcp\.json"):
        for name, args in attempts:
            await gated(gate, git_repo, name, args)
    assert not (git_repo / ".mcp.json").exists()


async def test_a_denied_verb_in_three_compound_commands_escalates(git_repo: Path) -> None:
    gate = PermissionGate(git_repo, PolicyApprover(allow_execute=True), mode=PermissionMode.BYPASS,
                          rules=PermissionSettings(deny=["bash(git push:*)"]))
    with pytest.raises(DenialEscalated, match="git push"):
        for command in ("git push", "true && git -C . push origin", "echo $(command git push)"):
            assert await gated(gate, git_repo, "bash", {"command": command}) == "denied"


async def test_denials_across_specialist_instances_escalate(git_repo: Path) -> None:
    gate = PermissionGate(git_repo, PolicyApprover())
    with pytest.raises(DenialEscalated, match="shell agent"):
        for agent_id, command in zip(("shell-1", "shell-2", "shell-3"), TOUCH_SPELLINGS,
                                     strict=False):
            await gated(gate, git_repo, "bash", {"command": command}, agent_id=agent_id)


async def test_escalation_in_a_specialist_stops_the_whole_prompt(
    shell_agent: Path, fake_model: Any
) -> None:
    """Three delegations, one denied `touch` spelling each: the third stops the prompt."""
    turns: list[ScriptedTurn] = []
    for command in TOUCH_SPELLINGS[:3]:
        turns += [ScriptedTurn(tool_calls=[call("delegate", agent="shell", task="create x")]),
                  ScriptedTurn(tool_calls=[call("bash", command=command)]),
                  ScriptedTurn(text="It was denied.")]
    turns.append(ScriptedTurn(text="I will try yet another way."))  # must never be requested
    fake_model.script(*turns)
    events: list[Any] = []
    gate = PermissionGate(shell_agent, PolicyApprover(), bus=EventBus())
    outcome = await orchestrator(shell_agent, fake_model, gate, events).run("make x")
    assert outcome.status == "escalated"
    assert "touch" in outcome.text and "shell" in outcome.text
    assert len(fake_model.requests) == 8
    assert not (shell_agent / "x").exists()
    finished = [e.status for e in events if isinstance(e, AgentFinished)]
    assert finished == ["done", "done", "escalated"]


async def test_escalation_counts_survive_the_next_prompt(
    shell_agent: Path, fake_model: Any
) -> None:
    """One denied attempt per prompt, same gate (one session): the third prompt stops."""
    gate = PermissionGate(shell_agent, PolicyApprover(), bus=EventBus())
    statuses = []
    for command in TOUCH_SPELLINGS[:3]:
        fake_model.script(ScriptedTurn(tool_calls=[call("delegate", agent="shell", task="x")]),
                          ScriptedTurn(tool_calls=[call("bash", command=command)]),
                          ScriptedTurn(text="It was denied."),
                          ScriptedTurn(text="Denied, so I stopped."))
        outcome = await orchestrator(shell_agent, fake_model, gate).run("make x")
        statuses.append(outcome.status)
    assert statuses == ["done", "done", "escalated"]
    assert not (shell_agent / "x").exists()


async def test_parallel_specialists_cannot_split_the_count(
    shell_agent: Path, fake_model: Any
) -> None:
    """Three instances in one parallel batch, one denial each: the prompt stops."""
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="shell", task="x", also=[
            {"agent": "shell", "task": "x"}, {"agent": "shell", "task": "x"}])]),
        ScriptedTurn(tool_calls=[call("bash", command="touch x")]),
        ScriptedTurn(text="It was denied."),
        ScriptedTurn(tool_calls=[call("bash", command="env touch x")]),
        ScriptedTurn(text="It was denied."),
        ScriptedTurn(tool_calls=[call("bash", command="command touch x")]),
        ScriptedTurn(text="never requested"),
    )
    gate = PermissionGate(shell_agent, PolicyApprover(), bus=EventBus())
    outcome = await orchestrator(shell_agent, fake_model, gate).run("make x")
    assert outcome.status == "escalated"
    assert len(fake_model.requests) == 6
    assert outcome.messages[-1]["role"] == "tool"  # the stopped delegate call got a result
    assert not (shell_agent / "x").exists()


def test_headless_escalation_exits_4_and_says_why(shell_agent: Path, fake_model: Any) -> None:
    """`valarmind -p`: three denied spellings across delegations stop the run with exit code 4,
    the reason on stderr and nothing on stdout."""
    import os
    import subprocess
    import sys

    from tests.conftest import write_user_config

    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')
    turns: list[ScriptedTurn] = []
    for command in TOUCH_SPELLINGS[:3]:
        turns += [ScriptedTurn(tool_calls=[call("delegate", agent="shell", task="create x")]),
                  ScriptedTurn(tool_calls=[call("bash", command=command)]),
                  ScriptedTurn(text="It was denied.")]
    fake_model.script(*turns, ScriptedTurn(text="never asked for"))
    out = subprocess.run([sys.executable, "-m", "valarmind_tui", "-p", "make x",
                          "--trust-project"], cwd=shell_agent, capture_output=True, text=True,
                         env=dict(os.environ), timeout=120)
    assert out.returncode == 4, out.stderr
    assert out.stdout == "" and "escalated" in out.stderr and "touch" in out.stderr
    assert not (shell_agent / "x").exists()
