"""Subagents from Claude Code, OpenCode and Gemini CLI files: lenient front matter, their tool
names mapped to ours, permissions from the tools, models through the person's aliases, the
orchestrator told about them and able to delegate by name."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fakes.model_server import ScriptedTurn
from tests.setup.helpers import place, trust
from valarmind_tui.agents.imported import GENERAL_TOOLS
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings
from valarmind_tui.settings.trust.decision import decide
from valarmind_tui.setup.subagents import scan_subagents


def registry_for(root: Path, **settings_flags) -> AgentRegistry:  # noqa: ANN003
    trust(root)
    settings = load_settings(root, trusted=decide(root).trusted, **settings_flags)
    return AgentRegistry.load(root, settings, home=Path(os.environ["HOME"]))


def test_claude_tools_map_to_ours_and_scope_bash(git_repo: Path) -> None:
    place("written", git_repo)
    reviewer = registry_for(git_repo).get("code-reviewer")
    assert reviewer.tools == ("read_file", "read_many_files", "grep", "glob", "bash")
    p = reviewer.permissions
    assert (p.read, p.write, p.execute, p.web, p.spawn) == (True, False, True, False, False)
    assert p.execute_allow == ("git diff", "git log")  # Bash(git diff:*) stays scoped
    assert reviewer.source == "project (claude)"


def test_no_tools_line_is_a_general_agent_and_disallowed_tools_remove(git_repo: Path) -> None:
    place("written", git_repo)
    registry = registry_for(git_repo)
    writer = registry.get("writer")  # disallowedTools: Bash, and `memory` we do not use
    assert "bash" not in writer.tools and "write_file" in writer.tools
    assert writer.permissions.write and not writer.permissions.execute
    docs = registry.get("docs-writer")  # OpenCode: tools: {bash: false}
    assert "bash" not in docs.tools and not docs.permissions.execute
    assert set(docs.tools) == set(GENERAL_TOOLS) - {"bash"}


def test_unknown_keys_are_noted_never_fatal(git_repo: Path) -> None:
    place("written", git_repo)
    found = {f.name: f for f in scan_subagents(git_repo, Path(os.environ["HOME"]), True)}
    assert found["code-reviewer"].loaded
    assert found["code-reviewer"].reason == "keys not used: color, permissionMode"
    assert found["writer"].reason == "keys not used: memory"


def test_models_go_through_the_persons_aliases(git_repo: Path) -> None:
    place("written", git_repo)  # code-reviewer: model: sonnet; docs-writer: anthropic/...
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[aliases]\nsonnet = "openrouter/anthropic/claude-sonnet-4.5"\n')
    registry = registry_for(git_repo)
    assert registry.get("code-reviewer").model == "sonnet"
    # a repository's file never picks a model of its own: the session's runs it
    assert registry.get("docs-writer").model is None
    assert any("docs-writer.md: model 'anthropic/claude-sonnet-4-20250514' is not one of "
               "your aliases" in note for note in registry.notes)


def test_real_gemini_and_claude_agents_load(git_repo: Path) -> None:
    place("gemini-cli", git_repo)
    home = Path(os.environ["HOME"])
    place("wshobson/.claude", home / ".claude")  # a user-level Claude agent
    registry = registry_for(git_repo)
    visualizer = registry.get("architecture-visualizer")
    assert visualizer.tools == ("bash", "write_file", "grep", "tree_view", "read_file",
                                "skill", "edit_file")
    assert visualizer.max_turns == 30 and visualizer.model is None  # model: inherit
    debugger = registry.get("debugger")
    assert debugger.source == "user (claude)"
    assert set(debugger.tools) == set(GENERAL_TOOLS)


def test_an_untrusted_folder_loads_no_subagent(git_repo: Path) -> None:
    place("written", git_repo)
    registry = AgentRegistry.load(git_repo, load_settings(git_repo, trusted=False),
                                  home=Path(os.environ["HOME"]))
    assert "code-reviewer" not in registry and "writer" not in registry


def test_our_agents_keep_their_names(git_repo: Path) -> None:
    folder = git_repo / ".claude/agents"
    folder.mkdir(parents=True)
    (folder / "code.md").write_text("---\nname: code\ndescription: theirs\ntools: Bash\n---\n"
                                    "Run anything.\n")
    registry = registry_for(git_repo)
    assert registry.get("code").source == "builtin"
    row = scan_subagents(git_repo, Path(os.environ["HOME"]), True, ours=registry.names())[0]
    assert (row.loaded, row.reason) == (False, "name taken by our code agent")
    assert any("code.md: left out, the name 'code' is taken by a builtin agent" in note
               for note in registry.notes)


async def test_the_orchestrator_sees_and_delegates_to_them(git_repo: Path, model_settings,
                                                          fake_model) -> None:
    place("written", git_repo)
    trust(git_repo)
    session = build_session(model_settings(git_repo, trusted=decide(git_repo).trusted), git_repo,
                      approver=PolicyApprover())
    await session.start()
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code-reviewer", "task": "Review the last commit."}}]),
        ScriptedTurn(text="No findings."),
        ScriptedTurn(text="The reviewer found nothing."),
    )
    result = await session.submit("review my work")
    assert result.text == "The reviewer found nothing."
    first, specialist = fake_model.requests[0], fake_model.requests[1]
    system = first["messages"][0]["content"]
    assert "- code-reviewer: Expert code review specialist." in system
    enum = next(t for t in first["tools"] if t["function"]["name"] == "delegate")
    assert "code-reviewer" in str(enum)
    assert specialist["messages"][0]["content"].startswith(
        "You are a senior code reviewer ensuring high standards")
    assert {t["function"]["name"] for t in specialist["tools"]} == {
        "read_file", "read_many_files", "grep", "glob", "bash",
        "command_output", "command_stop"}  # bash's background commands come with it


async def test_a_scoped_bash_stays_scoped(git_repo: Path, model_settings, fake_model) -> None:
    """code-reviewer has Bash(git diff:*) and Bash(git log:*): other commands are refused even
    when the person would allow them."""
    from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest

    class AllowAll:
        async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
            return ApprovalAnswer("allow_once")

    place("written", git_repo)
    trust(git_repo)
    session = build_session(model_settings(git_repo, trusted=decide(git_repo).trusted), git_repo,
                      approver=AllowAll())
    await session.start()
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code-reviewer", "task": "Review."}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "touch pwned"}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {"command": "git log -1"}}]),
        ScriptedTurn(text="Reviewed."),
        ScriptedTurn(text="Done."),
    )
    await session.submit("review")
    assert not (git_repo / "pwned").exists()
    results = [m for r in fake_model.requests for m in r["messages"] if m.get("role") == "tool"]
    outputs = [str(m["content"]) for m in results]
    assert outputs[0].startswith("Denied: The code-reviewer-1 agent may run only these "
                                 "commands: git diff; git log")
    assert any(o.startswith("commit ") and o.rstrip().endswith("init") for o in outputs)
