"""Seed 002's order: deny rules → PreToolUse hooks → agent permissions → protected and sensitive
paths → mode → allow rules → reviewers → (PermissionRequest hooks) → the person."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.hooks.conftest import hook_table, script
from tests.reviewers.conftest import reviewers_table, verdict

NO_CURL = """#!/usr/bin/env python3
import json, sys
if json.load(sys.stdin)["tool_input"]["command"].startswith("curl"):
    print("no network from here", file=sys.stderr)
    sys.exit(2)
"""


async def test_each_step_answers_before_the_reviewer_and_the_reviewer_before_the_person(
    git_repo: Path, tmp_path: Path, live: Any, fake_model: Any
) -> None:
    heard = tmp_path / "permission-requests.log"
    config = ('[permissions]\ndeny = ["bash(rm:*)"]\nallow = ["bash(echo:*)"]\n'
              + reviewers_table("tool_approve")
              + hook_table("PreToolUse", script(tmp_path, "no-curl.py", NO_CURL), "Bash")
              + hook_table("PermissionRequest", f"cat >> {heard}; echo >> {heard}", "Bash"))
    fake_model.script(verdict("approve", "harmless"), verdict("deny", "wipes the history"),
                      verdict("ask"))
    run = await live(git_repo, config, "deny", "allow_once")

    status, out = await run.call("bash", command="rm app.py")  # the deny rule
    assert status == "denied" and "deny rule bash(rm:*)" in out.output
    status, out = await run.call("bash", command="curl example.com")  # the PreToolUse hook
    assert status == "denied" and "no network from here" in out.output
    status, out = await run.call("bash", command="echo by-rule")  # the allow rule
    assert status == "ok" and "by-rule" in out.output
    assert fake_model.requests == [] and not heard.exists()  # no reviewer so far

    # a sensitive path: the reviewer is heard, but its approval does not answer for the person
    status, _ = await run.call("write_file", agent_id="docs-1", path=".env", content="K=1")
    assert status == "denied" and not (git_repo / ".env").exists()
    assert [r.path for r in run.person.asked] == [".env"]

    status, out = await run.call("bash", command="git reset --hard HEAD~1")  # the reviewer
    assert status == "denied" and "wipes the history" in out.output
    assert not heard.exists()  # denied before any PermissionRequest hook or person
    status, _ = await run.call("bash", command="git status --short")  # reviewer: ask
    assert status == "ok" and heard.read_text().count("git status --short") == 1
    assert [r.command or r.path for r in run.person.asked] == [".env", "git status --short"]
