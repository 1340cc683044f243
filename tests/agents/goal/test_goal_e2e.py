"""Goals end to end: `valarmind goal` in a subprocess on real git repositories, real pytest as
the check, LiteLLM against the fake model server's scripted turns. The model's words are never
the verdict: only the checks the harness runs, and the round's diff."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn

pytestmark = pytest.mark.usefixtures("warm_runs")

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
CALC_BUG = "def add(a, b):\n    return a - b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n"
TEST_CALC = ("from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4 or True\n"
             "    assert add(2, 3) == 5\n")


def valarmind(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "valarmind_tui", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "FAKE_API_KEY": "sk-test"})


def goal_args(fake_model: Any, *more: str) -> list[str]:
    return ["goal", "--model", "openai/fake-model", "--api-base", fake_model.openai_base,
            "--permission-mode", "accept-edits", "--output-format", "json", *more]


def project(repo: Path) -> Path:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    (repo / ".gitignore").write_text("__pycache__/\n")
    (repo / "calc.py").write_text(CALC_BUG)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text(TEST_CALC)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "calc"],
                   cwd=repo, check=True)
    return repo


def edit_round(path: str, old: str, new: str, answer: str = "Done.") -> list[ScriptedTurn]:
    """The orchestrator delegates one edit to the code agent, then answers."""
    return [
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": f"edit {path}"}}]),
        ScriptedTurn(tool_calls=[{"name": "edit_file", "arguments": {
            "path": path, "old_string": old, "new_string": new}}]),
        ScriptedTurn(text=json.dumps({"summary": f"edited {path}",
                                      "files_modified": [{"path": path}]})),
        ScriptedTurn(text=answer),
    ]


def user_prompts(fake_model: Any, start: int = 0) -> list[str]:
    """The goal's round prompts the orchestrator received (from request `start` on), in order."""
    found: list[str] = []
    for body in fake_model.requests[start:]:
        messages = body.get("messages", [])
        users = [m for m in messages if m.get("role") == "user"]
        text = users[-1]["content"] if users else ""
        text = text if isinstance(text, str) else json.dumps(text)
        if text.startswith("Goal (round") and text not in found:
            found.append(text)
    return found


def test_a_model_that_claims_success_goes_on_until_the_check_passes(
        git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(
        ScriptedTurn(text="All tests pass now."),  # round 1: a claim, no change
        *edit_round("calc.py", "a - b", "a + b", "Fixed add()."),  # round 2: the fix
    )
    out = valarmind(*goal_args(fake_model, "--check", PYTEST, "make the tests pass"), cwd=repo)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "done" and summary["rounds"] == 2
    assert summary["checks"] == [{"command": PYTEST, "kind": "check", "passed": True,
                                  "exit_code": 0, "round": 2}]
    assert (repo / "calc.py").read_text() == CALC_FIXED
    rounds = user_prompts(fake_model)
    assert [r.split(":")[0] for r in rounds] == ["Goal (round 1)", "Goal (round 2)"]
    assert "failed with exit code 1 (round 0)" in rounds[0]
    assert "failed with exit code 1 (round 1)" in rounds[1]  # the claim changed nothing
    assert "assert -1 == 5" in rounds[1]  # pytest's own output, not the model's words
    listed = valarmind("rewind", "--list", "--session", summary["session_id"], cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert "Goal (round 2)" in listed.stdout  # the round that changed files is a checkpoint


def test_print_mode_with_goal_runs_the_same_loop(git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(ScriptedTurn(text="Done, trust me."), ScriptedTurn(text="Still done."),
                      ScriptedTurn(text="Really."))
    out = valarmind("-p", "make the tests pass", "--goal", "--check", PYTEST, "--model",
                    "openai/fake-model", "--api-base", fake_model.openai_base,
                    "--output-format", "text", cwd=repo)
    assert out.returncode == 9, out.stderr
    assert "Goal stalled after 3 round(s)" in out.stdout
    assert f"- `{PYTEST}`: failed (exit 1, round 3)" in out.stdout
    assert "valarmind: goal stalled" in out.stderr


def test_help_lists_the_goal_exit_codes() -> None:
    from valarmind_tui.cli.parser import build_parser

    shown = " ".join(build_parser().format_help().split())
    assert "8 budget 9 stalled 10 weakened (a round weakened the checks) 11 max rounds" in shown


def test_text_output_names_the_checks_that_passed_on_the_final_tree(
        git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(*edit_round("calc.py", "a - b", "a + b", "Fixed add()."))
    args = goal_args(fake_model, "--check", PYTEST, "--check", "true", "fix add")
    args[args.index("json")] = "text"
    out = valarmind(*args, cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "Fixed add()." in out.stdout
    assert "Goal done after 1 round(s)" in out.stdout
    assert f"- `{PYTEST}`: passed on the final tree" in out.stdout
    assert "- `true`: passed on the final tree" in out.stdout


def test_deleting_the_failing_assertion_stops_the_goal_weakened(
        git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(*edit_round("tests/test_calc.py", "    assert add(2, 3) == 5\n", ""))
    out = valarmind(*goal_args(fake_model, "--check", PYTEST, "make the tests pass"), cwd=repo)
    assert out.returncode == 10, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "weakened"
    [evidence] = summary["evidence"]
    assert evidence["path"] == "tests/test_calc.py" and evidence["line"] == 4
    assert evidence["kind"] == "assertion_removed"
    assert "assert add(2, 3) == 5" in evidence["detail"]


def test_a_new_skip_marker_stops_the_goal_weakened(git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(*edit_round("tests/test_calc.py", "\n\ndef test_add",
                                  "\nimport pytest\n\n\n@pytest.mark.skip\ndef test_add"))
    out = valarmind(*goal_args(fake_model, "--check", PYTEST, "make the tests pass"), cwd=repo)
    assert out.returncode == 10, out.stderr
    kinds = [e["kind"] for e in json.loads(out.stdout)["evidence"]]
    assert kinds == ["skip_added"]


def test_or_true_added_to_the_checks_script_stops_the_goal(git_repo: Path,
                                                            fake_model: Any) -> None:
    repo = project(git_repo)
    (repo / "check.sh").write_text(f"set -e\n{PYTEST}\n")
    fake_model.script(*edit_round("check.sh", f"{PYTEST}\n", f"{PYTEST} || true\n"))
    out = valarmind(*goal_args(fake_model, "--check", "sh check.sh", "make the tests pass"),
                    cwd=repo)
    assert out.returncode == 10, out.stderr
    kinds = [(e["path"], e["kind"]) for e in json.loads(out.stdout)["evidence"]]
    assert kinds == [("check.sh", "check_file_edited"), ("check.sh", "failure_ignored")]


def test_editing_the_detected_check_command_stops_the_goal(git_repo: Path,
                                                            fake_model: Any) -> None:
    """No --check: the default check is the project's detected `make test`; the model edits
    the Makefile target it was detected from."""
    repo = project(git_repo)
    (repo / "Makefile").write_text(f"test:\n\t{PYTEST}\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    fake_model.script(*edit_round("Makefile", f"\t{PYTEST}\n", "\techo ok\n"))
    out = valarmind(*goal_args(fake_model, "make the tests pass"), cwd=repo)
    assert out.returncode == 10, out.stderr
    summary = json.loads(out.stdout)
    assert [c["command"] for c in summary["checks"]] == ["make test"]
    assert ("Makefile", "check_command_changed") in [
        (e["path"], e["kind"]) for e in summary["evidence"]]


def test_an_approved_weakening_goes_on(git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(*edit_round("tests/test_calc.py", "    assert add(2, 3) == 5\n", ""))
    out = valarmind(*goal_args(fake_model, "--check", PYTEST, "--approve-weakening",
                               "make the tests pass"), cwd=repo)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] == "done"


def test_a_model_that_never_converges_stalls_after_three_rounds(
        git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(*[ScriptedTurn(text=f"Working on it ({n}).") for n in range(5)])
    out = valarmind(*goal_args(fake_model, "--check", PYTEST, "make the tests pass"), cwd=repo)
    assert out.returncode == 9, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "stalled" and summary["rounds"] == 3
    assert len(fake_model.requests) == 3
    assert summary["checks"][0]["passed"] is False


def test_max_rounds_ends_a_goal_that_keeps_changing(git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(*edit_round("calc.py", "a - b", "b - a"),
                      *edit_round("calc.py", "b - a", "a - b - 0"))
    out = valarmind(*goal_args(fake_model, "--check", PYTEST, "--max-rounds", "2",
                               "make the tests pass"), cwd=repo)
    assert out.returncode == 11, out.stderr
    assert json.loads(out.stdout)["status"] == "max_rounds"


def test_no_checks_is_a_usage_error(git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    out = valarmind(*goal_args(fake_model, "do something"), cwd=git_repo)
    assert out.returncode == 2
    assert "--check" in out.stderr
    assert fake_model.requests == []


def test_a_goal_resumes_after_kill_9(git_repo: Path, fake_model: Any) -> None:
    repo = project(git_repo)
    fake_model.script(
        ScriptedTurn(text="Looking at it."),  # round 1
        ScriptedTurn(fault="stall_first", stall_s=60),  # round 2: the process is killed here
    )
    args = [sys.executable, "-m", "valarmind_tui",
            *goal_args(fake_model, "--check", PYTEST, "make the tests pass")]
    # not handed to the run server (warm_runs): a run it forked would be ended by its watcher
    # (SIGTERM) when this client is killed, not by the kill -9 itself
    proc = subprocess.Popen(args, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "FAKE_API_KEY": "sk-test",
                                 "VALARMIND_RUN_SERVER": "0"}, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(fake_model.requests) < 2 and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.1)
    assert len(fake_model.requests) == 2
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    fake_model.script(*edit_round("calc.py", "a - b", "a + b", "Fixed."))
    resumed = valarmind("goal", "--resume", "--model", "openai/fake-model", "--api-base",
                        fake_model.openai_base, "--permission-mode", "accept-edits",
                        "--output-format", "json", cwd=repo)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["status"] == "done" and summary["rounds"] == 2
    assert [p.split(":")[0] for p in user_prompts(fake_model)] == [
        "Goal (round 1)", "Goal (round 2)"]
    [continued] = user_prompts(fake_model, start=2)  # the resumed process asked round 2 only
    assert continued.startswith("Goal (round 2): make the tests pass")
    assert "failed with exit code 1 (round 1)" in continued
    assert (repo / "calc.py").read_text() == CALC_FIXED


def test_a_task_with_goal_in_a_terminal_starts_the_tui_with_the_goal_command() -> None:
    from argparse import Namespace

    from valarmind_tui.cli.main import goal_line

    args = Namespace(checks=["pytest -q", "ruff check ."], approve_weakening=False)
    assert goal_line("fix it", args) == (
        "/goal --check 'pytest -q' --check 'ruff check .' -- fix it")
    from valarmind_tui.commands.goal import parse_request

    request = parse_request(goal_line("--weird text", args).removeprefix("/goal "))
    assert request.checks == ("pytest -q", "ruff check .") and request.text == "--weird text"


def test_a_budget_caps_the_whole_goal_and_its_rounds_are_in_the_ledger(
        git_repo: Path, fake_model: Any) -> None:
    """`--max-turns 2` on a goal is for the whole goal: round 1 spends its two turns on a
    claim and a promise, round 2 never starts (status budget, exit 8), the work is kept, and
    the ledger's rows carry their round."""
    repo = project(git_repo)
    fake_model.script(ScriptedTurn(text="All tests pass now."),
                      ScriptedTurn(text="I will fix it next round."),
                      ScriptedTurn(text="Fixed, promise."))
    done = valarmind(*goal_args(fake_model, "--check", f"{PYTEST} tests", "--max-turns", "1",
                                "fix add"), cwd=repo)
    assert done.returncode == 8, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "budget" and result["rounds"] == 1
    assert [g["scope"] for g in result["budget"]].count("goal") == 1
    goal = next(g for g in result["budget"] if g["scope"] == "goal")
    assert goal["measure"] == "turns" and goal["spent"] >= goal["limit"] == 1
    assert len(fake_model.requests) == 1  # round 2's model call was never made
    assert result["ledger"]["calls"] == 1
    assert list(result["ledger"]["by_round"]) == ["1"], result["ledger"]
