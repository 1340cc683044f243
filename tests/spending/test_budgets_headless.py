"""Budgets stop `valarmind -p` runs (real subprocesses, real store, LiteLLM against the fake
server): cost, tokens, turns and time each end the run with status `budget` and exit code 8,
within one model call of the limit, the work kept and the session resumable."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import model_flags, valarmind

pytestmark = pytest.mark.usefixtures("warm_runs")

EXIT_BUDGET = 8
KEY = {"FAKE_API_KEY": "sk-test"}


def reading(n: int, prompt_tokens: int = 1000, completion_tokens: int = 50,
            **extra: Any) -> list[ScriptedTurn]:
    """`n` turns that each read a file: a run that would go on for `n` model calls."""
    return [ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}],
                         usage={"prompt_tokens": prompt_tokens,
                                "completion_tokens": completion_tokens}, **extra)
            for _ in range(n)]


def _running(command: str) -> bool:
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if command in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                return True
        except OSError:  # gone meanwhile
            continue
    return False


def run_json(repo: Path, fake_model: Any, *flags: str, model: str | None = None) -> Any:
    args = model_flags(fake_model)
    if model is not None:
        args[1] = model
    return valarmind("-p", "read app.py until you are sure", "--output-format", "json",
                     *args, *flags, cwd=repo, env=KEY)


def test_a_token_budget_stops_the_run_within_one_call(git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(*reading(6))  # 1,050 tokens a call
    out = run_json(git_repo, fake_model, "--max-tokens", "2500")
    assert out.returncode == EXIT_BUDGET, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "budget"
    assert "tokens budget is spent (3,150 tokens/2,500 tokens)" in summary["result"]
    assert len(fake_model.requests) == 3  # 2,100 < 2,500 <= 3,150: the fourth call not made
    assert summary["usage"]["prompt_tokens"] == 3000
    assert summary["budget"] == [{"scope": "prompt", "measure": "tokens", "spent": 3150.0,
                                  "limit": 2500.0}]


def test_a_turn_budget_stops_after_that_many_agent_calls(git_repo: Path,
                                                         fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(*reading(5))
    out = run_json(git_repo, fake_model, "--max-turns", "2")
    assert out.returncode == EXIT_BUDGET, out.stderr
    assert json.loads(out.stdout)["status"] == "budget"
    assert len(fake_model.requests) == 2


def test_a_cost_budget_stops_the_run_and_keeps_the_work(git_repo: Path,
                                                        fake_model: Any) -> None:
    """A priced model (gpt-4o-mini, LiteLLM's offline table); the code agent writes a file
    before the budget runs out: the file stays, and the stored session resumes."""
    from valarmind_tui.providers.litellm_call import cost_usd

    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    per_call = cost_usd("openai/gpt-4o-mini", 100_000, 1_000)
    assert per_call is not None and per_call > 0
    limit = per_call * 2.5  # the third call crosses it; the fourth is never made
    usage = {"prompt_tokens": 100_000, "completion_tokens": 1_000}
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "write notes.md"}}], usage=usage),
        ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
            "path": "notes.md", "content": "half done\n"}}], usage=usage),
        *reading(1, 100_000, 1_000))  # a fourth call would find the script ended: exit 1
    out = run_json(git_repo, fake_model, "--max-cost-usd", f"{limit:.6f}",
                   "--permission-mode", "accept-edits", model="openai/gpt-4o-mini")
    assert out.returncode == EXIT_BUDGET, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "budget" and "cost budget is spent" in summary["result"]
    assert len(fake_model.requests) == 3
    assert abs(summary["usage"]["cost_usd"] - 3 * per_call) < 1e-9
    assert (git_repo / "notes.md").read_text() == "half done\n"  # the work kept

    fake_model.script(ScriptedTurn(text="Done now."))
    again = valarmind("-p", "go on", f"--resume={summary['session_id']}", "--output-format",
                      "json", *model_flags(fake_model), cwd=git_repo, env=KEY)
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    assert resumed["session_id"] == summary["session_id"]
    sent = json.dumps(fake_model.requests[-1]["messages"])
    assert "read app.py until you are sure" in sent and "notes.md" in sent
    assert summary["ledger"]["calls"] == 3
    assert resumed["ledger"]["calls"] == 4  # the session's ledger: both runs


def test_a_time_budget_stops_within_one_call(git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(*reading(8, chunk_delay_s=0.2, chunk_size=4))  # ~1 s an answer
    out = run_json(git_repo, fake_model, "--max-time", "3s")
    assert out.returncode == EXIT_BUDGET, out.stderr
    summary = json.loads(out.stdout)
    assert "time budget is spent" in summary["result"]
    assert summary["budget"][0]["measure"] == "time" and summary["budget"][0]["spent"] >= 3
    times = fake_model.request_times
    assert 1 <= len(times) < 8  # stopped before the script ran out
    # every call made started within the limit (the clock starts before the first): the stop
    # came at the first call after it
    assert times[-1] - times[0] < 3.0


def test_a_time_budget_stops_a_command_that_outlasts_it(git_repo: Path,
                                                       fake_model: Any) -> None:
    """The clock runs out during a tool call: the call is stopped then, not after it ends."""
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    agents = Path.home() / ".config/valarmind/agents"
    agents.mkdir(parents=True)
    (agents / "runner.md").write_text(
        "---\nname: runner\ndescription: Runs commands.\ntools: [bash]\n"
        "permissions: {read: true, execute: true}\n---\nRun what you are asked to.\n")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "runner", "task": "run the slow script"}}]),
        ScriptedTurn(tool_calls=[{"name": "bash", "arguments": {
            "command": "sleep 41.2345; touch late"}}]),
        ScriptedTurn(text="ran it"), ScriptedTurn(text="finished"))
    start = time.monotonic()
    out = run_json(git_repo, fake_model, "--max-time", "2s", "--permission-mode", "bypass")
    took = time.monotonic() - start
    assert out.returncode == EXIT_BUDGET, out.stdout
    summary = json.loads(out.stdout)
    assert summary["status"] == "budget" and "time budget is spent" in summary["result"]
    assert took < 20  # not the 40 s the command asked for
    assert len(fake_model.requests) == 2  # nothing was asked after the command started
    assert not _running("sleep 41.2345")  # the command was stopped, not left running


def test_a_specialists_calls_count_and_stop_the_prompt(git_repo: Path,
                                                       fake_model: Any) -> None:
    """The orchestrator delegates; the code agent's calls spend the same budget, it stops
    `budget`, and the orchestrator's next call is not made either."""
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    usage = {"prompt_tokens": 1000, "completion_tokens": 0}
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "look at app.py"}}], usage=usage),
        *reading(6, 1000, 0),
    )
    out = run_json(git_repo, fake_model, "--max-tokens", "3000")
    assert out.returncode == EXIT_BUDGET, out.stderr
    summary = json.loads(out.stdout)
    assert len(fake_model.requests) == 3  # the orchestrator's, then the code agent's two
    by_agent = summary["ledger"]["by_agent"]
    code = next(name for name in by_agent if name != "main")
    assert by_agent["main"]["calls"] == 1 and by_agent[code]["calls"] == 2
    assert summary["ledger"]["by_tool"]["delegate"]["calls"] == 2


def test_the_user_configs_session_budget_stops_a_run(git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n[budget]\nsession_turns = 1\n')
    fake_model.script(*reading(3))
    out = run_json(git_repo, fake_model)
    assert out.returncode == EXIT_BUDGET, out.stderr
    assert "session's turns budget is spent" in json.loads(out.stdout)["result"]
    assert len(fake_model.requests) == 1


def test_text_output_says_the_budget_on_stderr_and_warns_at_80_percent(
        git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(*reading(6))
    out = valarmind("-p", "read", *model_flags(fake_model), "--max-tokens", "5000",
                    cwd=git_repo, env=KEY)
    assert out.returncode == EXIT_BUDGET
    assert out.stdout == ""
    assert out.stderr.count("of the prompt's tokens budget is spent") == 1  # the 80% notice
    assert "valarmind: budget: ## BUDGET" in out.stderr
    assert len(fake_model.requests) == 5  # 4 x 1,050 = 4,200 < 5,000 <= 5,250


def test_help_lists_the_budget_flags_and_exit_code(tmp_path: Path) -> None:
    out = valarmind("--help", cwd=tmp_path)
    assert out.returncode == 0
    for flag in ("--max-cost-usd", "--max-tokens", "--max-turns", "--max-time"):
        assert flag in out.stdout
    assert "8 budget: a --max-* flag's or [budget]'s limit was spent" in out.stdout
    bad = valarmind("-p", "x", "--max-time", "soon", cwd=tmp_path)
    assert bad.returncode == 2 and "not a duration: 'soon'" in bad.stderr


def test_the_runner_stops_at_its_budget_with_the_answer_file(git_repo: Path, fake_model: Any,
                                                             tmp_path: Path) -> None:
    write_user_config(
        f'[profiles.looker]\nmodel = "openai/fake-model"\napi_base = "{fake_model.openai_base}"'
        '\napi_key_env = "FAKE_API_KEY"\n')
    prompt = tmp_path / "p.md"
    prompt.write_text("Look around.")
    fake_model.script(*reading(4))
    output = tmp_path / "o.md"
    out = valarmind("run", "--agent", "looker", "--prompt", str(prompt), "--output", str(output),
                    "--max-turns", "1", cwd=git_repo, env=KEY)
    assert out.returncode == EXIT_BUDGET, out.stderr
    assert output.read_text().startswith("## BUDGET\n\nThe prompt's turns budget is spent")
    assert len(fake_model.requests) == 1
