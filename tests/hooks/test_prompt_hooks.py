"""`type: "prompt"` hooks from Claude Code's settings.json: one call to the session's model (the
fake model server, over real HTTP through LiteLLM), its `{"ok": ...}` answer acted on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from tests.hooks.test_claude_settings_hooks import claude_settings
from valarmind_tui.hooks.prompt_handler import answer_output, prompt_text

GUARD = ("Decide whether this shell command is safe to run in the project: $ARGUMENTS. "
         "It is not safe when it deletes files outside build/.")


def prompt_hook(home: Path, event: str, prompt: str, matcher: str = "") -> None:
    claude_settings(home / ".claude" / "settings.json", {"hooks": {event: [
        {"matcher": matcher, "hooks": [{"type": "prompt", "prompt": prompt, "timeout": 20}]}]}})


async def test_a_prompt_hook_that_says_no_denies_the_command_with_the_models_reason(
        git_repo: Path, isolated_home: Path, live: Any, fake_model: Any) -> None:
    prompt_hook(isolated_home, "PreToolUse", GUARD, matcher="Bash")
    (git_repo / "keep.txt").write_text("x")
    fake_model.script(ScriptedTurn(text='{"ok": false, "reason": "it deletes keep.txt"}'))
    run = await live(git_repo)
    result = await run.session.run_shell("rm keep.txt")
    assert result.is_error and "it deletes keep.txt" in result.output
    assert (git_repo / "keep.txt").exists()
    asked = fake_model.requests[-1]["messages"][-1]["content"]
    assert '"command": "rm keep.txt"' in asked and asked.startswith("Decide whether")
    [ran] = run.hook_runs("PreToolUse")
    assert ran.outcome == "blocked" and ran.command.startswith("prompt: Decide whether")


async def test_a_prompt_hook_that_says_ok_lets_the_command_run(
        git_repo: Path, isolated_home: Path, live: Any, fake_model: Any) -> None:
    prompt_hook(isolated_home, "PreToolUse", GUARD, matcher="Bash")
    fake_model.script(ScriptedTurn(text='Sure.\n{"ok": true}'))
    run = await live(git_repo)
    result = await run.session.run_shell("echo fine > out.txt")
    assert not result.is_error, result.output
    assert (git_repo / "out.txt").read_text() == "fine\n"
    assert [r.outcome for r in run.hook_runs("PreToolUse")] == ["ok"]


async def test_a_stop_prompt_hook_sends_the_agent_back_with_its_reason(
        git_repo: Path, isolated_home: Path, live: Any, fake_model: Any) -> None:
    prompt_hook(isolated_home, "Stop", "Check that the answer mentions the tests: $ARGUMENTS")
    fake_model.script(
        ScriptedTurn(text="Done."),
        ScriptedTurn(text='{"ok": false, "reason": "say whether the tests pass"}'),
        ScriptedTurn(text="Done, and the tests pass."),
        ScriptedTurn(text='{"ok": true}'),
    )
    run = await live(git_repo)
    result = await run.session.submit("fix it")
    assert result.status == "done" and result.text.endswith("the tests pass.")
    again = json.dumps(fake_model.requests[2]["messages"])
    assert "say whether the tests pass" in again
    assert [r.outcome for r in run.hook_runs("Stop")] == ["blocked", "ok"]
    kinds = run.session.spending.spend().by["kind"]  # the hook's calls are in the ledger
    assert (kinds["agent"].calls, kinds["hook"].calls) == (2, 2)


async def test_offline_a_prompt_hook_is_reported_as_not_run_and_the_command_runs(
        git_repo: Path, isolated_home: Path, live: Any, fake_model: Any) -> None:
    prompt_hook(isolated_home, "PreToolUse", GUARD, matcher="Bash")
    fake_model.script(ScriptedTurn(status=401, error="no network here"))
    run = await live(git_repo)
    result = await run.session.run_shell("echo ran > out.txt")
    assert not result.is_error and (git_repo / "out.txt").exists()
    [ran] = run.hook_runs("PreToolUse")
    assert ran.outcome == "not_run"
    assert any("was not run" in w and "prompt: Decide whether" in w for w in run.warnings())


def test_the_event_goes_where_arguments_is_or_after_the_prompt() -> None:
    payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    text = prompt_text("Check $ARGUMENTS now", payload)
    assert text.startswith("Check {") and text.endswith("} now")
    assert '"command": "ls"' in prompt_text("Check it.", payload)
    assert prompt_text("Check it.", payload).startswith("Check it.\n\nThe event:")


def test_answers_are_read_as_claude_code_and_its_older_format_spell_them() -> None:
    assert answer_output('{"ok": true}') == {}
    assert answer_output('{"ok": false, "reason": "no"}') == {"decision": "block",
                                                              "reason": "no"}
    assert answer_output('{"decision": "block"}') == {"decision": "block",
                                                      "reason": "the prompt hook said no"}
    assert answer_output("I think it is fine.") is None
    assert answer_output('{"ok": "yes"}') is None
