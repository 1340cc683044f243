"""The reviewers an agent run meets: intent-check at Stop, error-acknowledge after a failed call,
plan-validate on exit_plan_mode, and the appeal tool offered when tool-appeal is on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.reviewers.conftest import reviewers_table, system_prompts, verdict
from valarmind_tui.core.events import ToolCallFinished
from valarmind_tui.oversight import prompts
from valarmind_tui.safety.gate.approval import PermissionMode

ORCHESTRATOR = "You are ValarMind's orchestrator"


def call(name: str, **arguments: Any) -> ScriptedTurn:
    return ScriptedTurn(tool_calls=[{"name": name, "arguments": arguments}])


REVIEWERS = {prompts.INTENT_CHECK[:60]: "intent", prompts.ERROR_ACKNOWLEDGE[:60]: "error",
             prompts.PLAN_VALIDATE[:60]: "plan"}


def who(fake_model: Any) -> list[str]:
    """Who made each request: `agent` or the reviewer."""
    return ["agent" if p.startswith(ORCHESTRATOR) else REVIEWERS.get(p, p)
            for p in system_prompts(fake_model)]


async def test_intent_check_makes_the_agent_continue_once(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(
        ScriptedTurn(text="Here is a poem about cats."),
        verdict("not_done", "the user asked what greet() returns"),
        ScriptedTurn(text="Still thinking about cats."),  # off again: no second review
    )
    run = await live(git_repo, reviewers_table("intent_check"))
    result = await run.session.submit("what does greet() return?")
    assert result.status == "done" and result.text == "Still thinking about cats."
    assert who(fake_model) == ["agent", "intent", "agent"]
    reviewed = fake_model.requests[1]["messages"][1]["content"]
    assert "what does greet() return?" in reviewed and "poem about cats" in reviewed
    nudge = fake_model.requests[2]["messages"][-1]
    assert nudge["role"] == "user" and "the user asked what greet() returns" in nudge["content"]
    assert [e.verdict for e in run.reviews("intent-check")] == ["not_done"]


async def test_intent_check_lets_a_good_answer_stop(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(ScriptedTurn(text="It returns 'Hello ' + name."), verdict("done"))
    run = await live(git_repo, reviewers_table("intent_check"))
    result = await run.session.submit("what does greet() return?")
    assert result.text == "It returns 'Hello ' + name." and len(fake_model.requests) == 2


async def test_error_acknowledge_injects_a_note_after_an_ignored_error(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(
        call("read_file", path="missing.py"),
        ScriptedTurn(text="All done, the file looks good."),
        verdict("ignored", "the read failed but the answer says it looks good"),
        ScriptedTurn(text="missing.py does not exist, so I could not check it."),
    )
    run = await live(git_repo, reviewers_table("error_acknowledge"))
    result = await run.session.submit("check missing.py")
    assert result.text == "missing.py does not exist, so I could not check it."
    assert who(fake_model) == ["agent", "agent", "error", "agent"]
    reviewed = fake_model.requests[2]["messages"][1]["content"]
    assert "read_file (error)" in reviewed and "All done, the file looks good." in reviewed
    note = fake_model.requests[3]["messages"][-1]
    assert note["role"] == "user" and "error-acknowledge reviewer" in note["content"]


async def test_error_acknowledge_holds_back_the_next_calls_until_the_error_is_addressed(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(
        call("read_file", path="missing.py"),
        call("glob", pattern="*.md"),
        verdict("ignored", "went on to other files"),
        ScriptedTurn(text="missing.py does not exist."),
    )
    run = await live(git_repo, reviewers_table("error_acknowledge"))
    result = await run.session.submit("summarise missing.py")
    assert result.text == "missing.py does not exist."
    held = [e for e in run.events if isinstance(e, ToolCallFinished) and e.name == "glob"]
    assert len(held) == 1 and held[0].status == "denied"
    told = fake_model.requests[3]["messages"][-1]
    assert told["role"] == "tool" and told["content"].startswith(
        "Not run: The error-acknowledge reviewer")


async def test_error_acknowledge_accepts_an_answer_that_addresses_the_error(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(call("read_file", path="missing.py"),
                      ScriptedTurn(text="missing.py does not exist."), verdict("acknowledged"))
    run = await live(git_repo, reviewers_table("error_acknowledge"))
    result = await run.session.submit("check missing.py")
    assert result.text == "missing.py does not exist." and len(fake_model.requests) == 3


async def test_plan_validate_sends_a_drifting_plan_back(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(
        call("exit_plan_mode", plan="1. Rewrite the project in Rust."),
        verdict("reject", "the user asked to fix a typo in README.md"),
        call("exit_plan_mode", plan="1. Fix the typo in README.md."),
        verdict("accept"),
        ScriptedTurn(text="Plan approved; fixing the typo next."),
    )
    run = await live(git_repo, reviewers_table("plan_validate"), "allow_once")
    run.session.set_mode(PermissionMode.PLAN)
    result = await run.session.submit("fix the typo in README.md")
    assert result.status == "done"
    assert [r.diff for r in run.person.asked] == ["1. Fix the typo in README.md."]
    rejected = fake_model.requests[2]["messages"][-1]
    assert rejected["role"] == "tool" and (
        "plan-validate reviewer rejected the plan: the user asked to fix a typo" in
        rejected["content"])
    assert run.session.mode is PermissionMode.DEFAULT
    assert [e.verdict for e in run.reviews("plan-validate")] == ["reject", "accept"]


async def test_the_appeal_tool_is_offered_only_when_tool_appeal_is_on(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(ScriptedTurn(text="Hi."), ScriptedTurn(text="Hi."))
    on = await live(git_repo, reviewers_table("tool_appeal"))
    await on.session.submit("hello")
    off = await live(git_repo, "")
    await off.session.submit("hello")
    offered = [{t["function"]["name"] for t in r["tools"]} for r in fake_model.requests]
    assert "appeal_denial" in offered[0] and "appeal_denial" not in offered[1]
