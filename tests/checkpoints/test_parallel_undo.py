"""/undo after two runs at once on one project (#37): each run's undo takes back only what its
own calls changed and says what it left because another run changed it meanwhile (it used to
remove or restore the other run's files: its turn was the whole tree's difference)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import SHELL_AGENT, write
from tests.checkpoints.test_headless import ENV, configure
from tests.fakes.model_server import FakeModelServer
from tests.test_headless import model_flags, valarmind
from valarmind_tui.checkpoints import SessionCheckpoints
from valarmind_tui.core.user_dirs import user_config_dir, user_data_dir
from valarmind_tui.store.sessions import SessionStore

WRITES = 12
"""Writes each run makes to its one file, one model turn each (two files would call for the
quality gates)."""


def _writes(prefix: str) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "delegate", "arguments": {"agent": "shell", "task": "write"}}]}]
    turns += [{"tool_calls": [write(f"{prefix}.txt", f"{prefix} {n}\n")]}
              for n in range(WRITES)]
    turns += [{"text": "Done in the shell."}, {"text": "Done."}]
    return turns


def test_undo_after_two_runs_at_once_takes_back_only_its_own(
    git_repo: Path, fake_model: Any,
) -> None:
    configure()
    (user_config_dir() / "agents" / "shell.md").write_text(
        SHELL_AGENT.replace("max_turns: 10", f"max_turns: {WRITES + 5}"))
    (git_repo / "shared.txt").write_text("before\n")
    other = FakeModelServer().start()
    try:
        fake_model.script(*_writes("a"))
        other.script(*_writes("b"))
        procs = [subprocess.Popen(
            [sys.executable, "-m", "valarmind_tui", "-p", title, "--permission-mode",
             "bypass", *model_flags(server)], cwd=git_repo, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env={**os.environ, **ENV})
            for title, server in (("alpha", fake_model), ("beta", other))]
        for proc in procs:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, out + err
    finally:
        other.stop()
    store = SessionStore(user_data_dir() / "sessions.db")
    try:
        sessions = {s.title: s.id for s in store.list(git_repo)}
    finally:
        store.close()
    [alpha_turn] = SessionCheckpoints(git_repo, sessions["alpha"]).turns()
    assert alpha_turn.own == {"a.txt"}

    undone = valarmind("undo", "--session", sessions["alpha"], cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert not (git_repo / "a.txt").exists()
    assert (git_repo / "b.txt").read_text() == f"b {WRITES - 1}\n"
    left = [line for line in undone.stdout.splitlines() if "another session" in line]
    assert all(line.endswith(": b.txt") for line in left), undone.stdout

    undone = valarmind("undo", "--session", sessions["beta"], cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert not (git_repo / "b.txt").exists()
    assert (git_repo / "shared.txt").read_text() == "before\n"


async def test_a_file_another_program_wrote_during_the_turn_is_left_and_named(
    git_repo: Path,
) -> None:
    checkpoints = SessionCheckpoints(git_repo, "s1")
    checkpoints.begin("write mine")
    await checkpoints.before_change("write_file")
    (git_repo / "mine.txt").write_text("mine\n")
    (git_repo / "theirs.txt").write_text("theirs\n")  # another program, during the call
    await checkpoints.after_change("write_file", ["mine.txt"])
    (git_repo / "later.txt").write_text("later\n")  # and between calls
    await checkpoints.before_change("bash")
    (git_repo / "ran.txt").write_text("a command's\n")
    await checkpoints.after_change("bash", None)
    await checkpoints.end()

    [turn] = checkpoints.turns()
    assert turn.own == {"mine.txt", "ran.txt"}
    restored = await checkpoints.undo()
    assert not (git_repo / "mine.txt").exists() and not (git_repo / "ran.txt").exists()
    assert (git_repo / "theirs.txt").read_text() == "theirs\n"
    assert (git_repo / "later.txt").read_text() == "later\n"
    assert sorted(restored.report.not_ours) == ["later.txt", "theirs.txt"]
    assert "another session or program" in restored.describe()
    await checkpoints.redo()
    assert (git_repo / "mine.txt").read_text() == "mine\n"
