"""tool-approve: a model's second opinion before the person is asked (fake model server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.reviewers.conftest import reviewers_table, system_prompts, verdict
from valarmind_tui.commands.registry import CommandResult

ON = reviewers_table("tool_approve")


async def test_approves_a_low_risk_call_denies_a_mistake_and_otherwise_asks(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("approve", "runs the tests the user asked for"),
                      verdict("deny", "deletes the repository, nobody asked for that"),
                      verdict("ask", "pushes to a remote"))
    run = await live(git_repo, ON, "allow_once")
    run.session.gate.reviewers.began("main", "run the tests")

    ran = await run.call("bash", command="echo tests-pass")
    assert ran == ("ok", ran[1]) and "tests-pass" in ran[1].output
    assert run.person.asked == []  # approved by the reviewer: the person was not asked

    status, result = await run.call("bash", command="rm -rf .git")
    assert status == "denied" and (git_repo / ".git").is_dir()
    assert "Denied by the tool-approve reviewer: deletes the repository" in result.output
    assert run.person.asked == []

    status, result = await run.call("bash", command="echo pushed")
    assert status == "ok" and [r.command for r in run.person.asked] == ["echo pushed"]

    asked = fake_model.requests[0]["messages"]
    assert asked[0]["content"].startswith("You review a tool call")
    assert "<request>\nrun the tests\n</request>" in asked[1]["content"]
    assert "bash: echo tests-pass" in asked[1]["content"]
    assert [(e.reviewer, e.verdict) for e in run.reviews()] == [
        ("tool-approve", "approve"), ("tool-approve", "deny"), ("tool-approve", "ask")]


async def test_a_malformed_verdict_or_a_failing_model_asks_the_person(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(ScriptedTurn(text="Looks fine to me, go ahead!"),
                      verdict("approve-everything"),
                      ScriptedTurn(status=400, error="bad request"))
    run = await live(git_repo, ON, "deny", "deny", "allow_once")
    for command in ("echo one", "echo two", "echo three"):
        await run.call("bash", command=command)
    assert [r.command for r in run.person.asked] == ["echo one", "echo two", "echo three"]
    assert [e.verdict for e in run.reviews()] == ["none", "none", "none"]
    warnings = run.warnings()
    assert sum("answer was not a valid verdict" in w for w in warnings) == 2
    assert any("tool-approve reviewer failed" in w for w in warnings)


async def test_never_approves_a_protected_path_or_a_hooks_ask(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("approve"))
    run = await live(git_repo, ON, "deny")
    status, _ = await run.call("write_file", path=".mcp.json", content="{}")
    assert status == "denied" and not (git_repo / ".mcp.json").exists()
    assert [r.path for r in run.person.asked] == [".mcp.json"]  # the person decided


async def test_the_persons_own_commands_are_not_reviewed(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    run = await live(git_repo, ON, "allow_once")
    result = await run.session.run_shell("echo mine")
    assert "mine" in result.output and fake_model.requests == []


async def test_budget_alias_and_cost(git_repo: Path, live: Any, fake_model: Any) -> None:
    fake_model.script(verdict("approve", prompt_tokens=300, completion_tokens=20),
                      {"text": "Listed the files.", "usage": {"prompt_tokens": 1000,
                                                               "completion_tokens": 50}})
    config = ('[aliases]\nfast = "openai/fake-reviewer"\n'
              + reviewers_table("tool_approve", extra='model = "fast"\nmax_calls = 1'))
    run = await live(git_repo, config, "allow_once")
    await run.call("bash", command="echo one")
    await run.call("bash", command="echo two")  # over budget: the person is asked
    assert [r.command for r in run.person.asked] == ["echo two"]
    assert fake_model.requests[0]["model"] == "fake-reviewer"  # the reviewer's own alias
    assert any("tool-approve reviewer is skipped from now on" in w for w in run.warnings())
    assert [e.verdict for e in run.reviews()] == ["approve", "none"]

    await run.session.submit("list the files")
    cost: CommandResult = await run.session.run_command("/cost")
    assert "Tokens: 1,300 in, 70 out." in cost.text
    assert "- main: 1 call, 1,000 in, 50 out, unknown price" in cost.text
    assert "- tool-approve: 1 call, 300 in, 20 out" in cost.text
    assert cost.data["by_reviewer"]["tool-approve"]["prompt_tokens"] == 300
    assert system_prompts(fake_model)[1].startswith("You are ValarMind's orchestrator")


async def test_never_approves_instead_of_the_headless_policy(
    git_repo: Path, fake_model: Any, monkeypatch: Any
) -> None:
    from tests.conftest import write_user_config
    from valarmind_tui.agents.gated_call import run_gated
    from valarmind_tui.safety.gate.approval import PolicyApprover
    from valarmind_tui.safety.gate.permissions import AgentPermissions
    from valarmind_tui.session.wiring import build_session
    from valarmind_tui.settings.config import load_settings
    from valarmind_tui.tools.base import ToolContext

    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n' + ON)
    settings = load_settings(git_repo, model="openai/fake-model", api_base=fake_model.openai_base)
    policy = PolicyApprover(allow_execute=False)
    session = build_session(settings, git_repo, approver=policy)
    fake_model.script(verdict("approve"), verdict("deny", "not asked for"))
    bash = session.tools.get("bash")
    ctx = ToolContext(project_root=git_repo, sandbox=session.sandbox)
    for command in ("echo one", "echo two"):
        status, result = await run_gated(bash, bash.parse({"command": command}), ctx,
                                         session.gate, AgentPermissions.full())
        assert status == "denied"
    assert [r.command for r in policy.denied] == ["echo one"]  # the policy decided the first
    assert "tool-approve reviewer: not asked for" in result.output  # a deny still counts
