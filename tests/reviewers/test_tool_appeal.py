"""tool-appeal: an agent appeals a reviewer's or a deny rule's denial once; never a person's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.reviewers.conftest import reviewers_table, verdict
from valarmind_tui.safety.gate.permissions import AgentPermissions

BOTH = reviewers_table("tool_approve", "tool_appeal")


def denial_id(output: str) -> str:
    found = re.search(r"denial_id='(denial-[0-9a-f]+)'", output)
    assert found is not None, output
    return found.group(1)


async def test_overturn_lets_the_same_call_run_once(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("deny", "looks unrelated"),
                      verdict("overturn", "the user asked to clean the build folder"))
    run = await live(git_repo, BOTH)
    (git_repo / "build").mkdir()
    status, denied = await run.call("bash", command="rm -r build")
    assert status == "denied" and (git_repo / "build").is_dir()
    status, heard = await run.call("appeal_denial", denial_id=denial_id(denied.output),
                                   justification="The user asked me to remove build/.")
    assert status == "ok" and heard.output.startswith("OVERTURN")
    assert heard.data == {"overturned": True}
    appeal_prompt = fake_model.requests[1]["messages"][1]["content"]
    assert "The user asked me to remove build/." in appeal_prompt
    assert "looks unrelated" in appeal_prompt

    status, _ = await run.call("bash", command="rm -r build")
    assert status == "ok" and not (git_repo / "build").exists()
    assert run.person.asked == []  # the reviewer's denial, overturned: no person needed
    assert [(e.reviewer, e.verdict) for e in run.reviews()] == [
        ("tool-approve", "deny"), ("tool-appeal", "overturn")]


async def test_uphold_keeps_the_denial_and_a_denial_is_appealed_only_once(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("deny", "force-push"), verdict("uphold", "not asked for"))
    run = await live(git_repo, BOTH)
    _, denied = await run.call("bash", command="echo force-push")
    first = denial_id(denied.output)
    _, heard = await run.call("appeal_denial", denial_id=first, justification="needed")
    assert heard.output.startswith("UPHOLD: the denial stands (not asked for)")
    _, again = await run.call("appeal_denial", denial_id=first, justification="really needed")
    assert "no appealable denial" in again.output and again.data == {"overturned": False}
    assert len(fake_model.requests) == 2  # the second appeal never reached a model


async def test_a_deny_rule_overturned_goes_to_the_person(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("overturn", "a temporary file the agent created"))
    config = '[permissions]\ndeny = ["bash(rm:*)"]\n' + reviewers_table("tool_appeal")
    run = await live(git_repo, config, "allow_once")
    (git_repo / "tmp.txt").write_text("x")
    _, denied = await run.call("bash", command="rm tmp.txt")
    assert "deny rule bash(rm:*)" in denied.output
    await run.call("appeal_denial", denial_id=denial_id(denied.output),
                   justification="I created tmp.txt a minute ago.")
    status, _ = await run.call("bash", command="rm tmp.txt")
    assert status == "ok" and not (git_repo / "tmp.txt").exists()
    asked = run.person.asked
    assert len(asked) == 1 and asked[0].deny_rule == "bash(rm:*)"  # the person decided
    _, again = await run.call("bash", command="rm tmp.txt")  # the pass was used up
    assert "deny rule bash(rm:*)" in again.output and len(run.person.asked) == 1


async def test_an_overturned_deny_rule_still_meets_the_rest_of_the_pipeline(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("overturn", "fine"))
    config = '[permissions]\ndeny = ["bash(rm:*)"]\n' + reviewers_table("tool_appeal")
    run = await live(git_repo, config, "allow_once")
    only_ls = AgentPermissions(execute=True, execute_allow=("ls",))
    _, denied = await run.call("bash", agent_id="qa-1", permissions=only_ls, command="rm x")
    await run.call("appeal_denial", agent_id="qa-1", denial_id=denial_id(denied.output),
                   justification="cleanup")
    status, out = await run.call("bash", agent_id="qa-1", permissions=only_ls, command="rm x")
    assert status == "denied" and "may run only these commands: ls" in out.output
    assert run.person.asked == []


async def test_a_persons_denial_is_never_appealable(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    run = await live(git_repo, reviewers_table("tool_appeal"), "deny")
    status, denied = await run.call("bash", command="echo hi")
    assert status == "denied" and "denial_id" not in denied.output
    _, heard = await run.call("appeal_denial", denial_id="denial-00000000",
                              justification="the person was wrong")
    assert "no appealable denial" in heard.output
    assert fake_model.requests == []


async def test_a_specialist_cannot_appeal_another_agents_denial(
    git_repo: Path, live: Any, fake_model: Any
) -> None:
    fake_model.script(verdict("deny", "no"))
    run = await live(git_repo, BOTH)
    _, denied = await run.call("bash", agent_id="code-1", command="echo x")
    _, heard = await run.call("appeal_denial", agent_id="qa-1",
                              denial_id=denial_id(denied.output), justification="mine now")
    assert "no appealable denial" in heard.output and len(fake_model.requests) == 1
