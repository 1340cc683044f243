"""Best-of-3 through the real command line: three `valarmind -p` processes in three worktrees at
once, a scripted fake model per attempt (its own script by model name), the checks deciding.
Only the attempt that passes is merged; the others' branches stay until removed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.worktrees.conftest import every_byte, git

CHECK = "python3 -c \"import app; assert app.greet('Ann') == 'Hello, Ann!'\""


def _attempt_script(body: str) -> list[ScriptedTurn]:
    result = json.dumps({"summary": "rewrote greet", "files_modified": [{"path": "app.py"}]})
    return [
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "rewrite greet in app.py"}}]),
        ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
            "path": "app.py", "content": f"def greet(name):\n    return {body}\n"}}]),
        ScriptedTurn(text=result),
        ScriptedTurn(text="greet rewritten."),
    ]


def test_best_of_three_merges_the_one_that_passes_and_keeps_the_others(
        git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n[aliases]\nquick = "openai/fake-a"\n'
                      'careful = "openai/fake-b"\nthird = "openai/fake-c"\n')
    fake_model.script_for("fake-a", *_attempt_script("'Hi ' + name"))
    fake_model.script_for("fake-b", *_attempt_script("f'Hello, {name}!'"))
    fake_model.script_for("fake-c", *_attempt_script("name"))
    (git_repo / "notes.txt").write_text("the person's own work in progress\n")
    index = (git_repo / ".git" / "index").read_bytes()

    done = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "-p", "make greet say Hello, NAME!",
         "--best-of", "3", "--models", "quick,careful,third", "--check", CHECK,
         "--api-base", fake_model.openai_base],
        cwd=git_repo, capture_output=True, text=True, timeout=400,
        env={**os.environ, "FAKE_API_KEY": "sk-test"})
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout
    names = sorted(line.split()[0] for line in said.splitlines() if line.startswith("best-"))
    assert len(names) == 3, said
    assert "[careful]: PASSED" in said and said.count("failed") >= 2
    assert "attempts disagree on: app.py" in said
    assert "changes 1 file(s): app.py" in said  # the checks' own leftovers are not merged
    assert "picked " + names[1] in said and "merged worktree " + names[1] in said
    assert (git_repo / "app.py").read_text() == (
        "def greet(name):\n    return f'Hello, {name}!'\n")
    assert (git_repo / "notes.txt").read_text() == "the person's own work in progress\n"
    assert (git_repo / ".git" / "index").read_bytes() == index

    branches = git(git_repo, "branch", "--format=%(refname:short)", "--list", "valarmind/*").split()
    assert sorted(branches) == [f"valarmind/{n}" for n in names]
    listed = subprocess.run([sys.executable, "-m", "valarmind_tui", "worktrees"], cwd=git_repo,
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert all(n in listed.stdout for n in names)
    for loser in (names[0], names[2]):
        wt_file = next(Path(line.split("\t")[-1]) for line in listed.stdout.splitlines()
                       if line.startswith(loser)) / "app.py"
        assert "Hello, {name}!" not in wt_file.read_text()  # its own attempt, kept
    before = every_byte(git_repo)
    removed = subprocess.run([sys.executable, "-m", "valarmind_tui", "worktrees", "remove",
                              names[0], "--force"], cwd=git_repo, capture_output=True,
                             text=True, timeout=60)
    assert removed.returncode == 0, removed.stderr
    assert f"valarmind/{names[0]}" not in git(git_repo, "branch", "--list", "valarmind/*")
    after = every_byte(git_repo)
    assert {k: v for k, v in before.items() if names[0] not in k} == after


def test_no_passing_attempt_merges_nothing_and_exits_7_with_a_json_summary(
        git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(ScriptedTurn(text="I would rather not change anything."))
    before = every_byte(git_repo)
    done = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "-p", "do nothing", "--best-of", "1",
         "--model", "openai/fake-model", "--check", "true", "--output-format", "json",
         "--api-base", fake_model.openai_base],
        cwd=git_repo, capture_output=True, text=True, timeout=300,
        env={**os.environ, "FAKE_API_KEY": "sk-test"})
    assert done.returncode == 12, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    (attempt,) = summary["attempts"]
    assert attempt["passed"] is False and attempt["changed"] == [] and attempt["checks"] == []
    assert attempt["exit_code"] == 0 and attempt["model"] == "openai/fake-model"
    assert summary["picked"] is None and summary["merged"] is False
    after = every_byte(git_repo)
    assert after.pop(".git/refs/heads/valarmind/" + attempt["worktree"])
    assert after == before
