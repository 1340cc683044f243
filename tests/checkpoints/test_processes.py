"""Crash safety and concurrency with real `valarmind` processes: kill -9 in the middle of a turn
that checkpointed several times, then `--continue` in the REPL shows what had been shown and
every checkpoint can still be reached; two `valarmind -p` at once on one project keep the store
and each other's checkpoints whole."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import bash, kill_after_streaming, shell_turn, tree_state
from tests.checkpoints.test_headless import ENV, configure
from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.test_headless import model_flags, valarmind
from valarmind_tui.checkpoints import SessionCheckpoints
from valarmind_tui.context.interrupted import INTERRUPTED
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.store.sessions import SessionStore

ANSWER = " ".join(f"word{n}" for n in range(400))


def _start(root: Path, server: FakeModelServer, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "valarmind_tui", *args, "--output-format", "jsonl",
         "--permission-mode", "bypass", *model_flags(server)],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **ENV})


def test_kill_mid_turn_then_continue_in_the_repl_and_rewind_to_each_checkpoint(
    git_repo: Path, fake_model: Any,
) -> None:
    configure()
    start = tree_state(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    first = valarmind("-p", "one", "--permission-mode", "bypass", *model_flags(fake_model),
                      cwd=git_repo, env=ENV, timeout=120)
    assert first.returncode == 0, first.stderr
    after_one = tree_state(git_repo)

    turns = shell_turn(bash("echo 2 > two.txt && chmod +x app.py"), bash("mv one.txt uno.txt"))
    turns[-1] = ScriptedTurn(text=ANSWER, chunk_size=6, chunk_delay_s=0.02)
    fake_model.script(*turns)
    proc = _start(git_repo, fake_model, "--continue", "-p", "two")
    shown = kill_after_streaming(proc, 200)
    killed = tree_state(git_repo)
    assert "uno.txt" in killed and killed["app.py"][2] & 0o111

    repl = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "--continue", "--plain",
         *model_flags(fake_model)], input="/quit\n", cwd=git_repo, capture_output=True,
        text=True, env={**os.environ, **ENV}, timeout=120)
    assert repl.returncode == 0, repl.stderr
    assert "> two" in repl.stdout and shown in repl.stdout and INTERRUPTED in repl.stdout

    listed = valarmind("rewind", "--list", cwd=git_repo)
    rows = listed.stdout.splitlines()[1:]
    assert [row.split()[0] for row in rows[:2]] == ["1", "2"]
    assert rows[2].startswith("To go back to before one of your messages")  # then how
    assert valarmind("rewind", "--to", "2", cwd=git_repo).returncode == 0
    assert tree_state(git_repo) == after_one
    assert valarmind("redo", cwd=git_repo).returncode == 0
    assert tree_state(git_repo) == killed
    assert valarmind("rewind", "--to", "1", cwd=git_repo).returncode == 0
    assert tree_state(git_repo) == start

    both = valarmind("rewind", "--prompt", "2", "--scope", "both", "--force", cwd=git_repo)
    assert both.returncode == 0, both.stderr
    assert tree_state(git_repo) == after_one
    fake_model.script({"text": "Fresh."})
    again = valarmind("--continue", "-p", "three", *model_flags(fake_model), cwd=git_repo,
                      env=ENV, timeout=120)
    assert again.returncode == 0, again.stderr
    sent = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["one", "three"]


def test_two_processes_at_once_on_one_project(git_repo: Path, fake_model: Any) -> None:
    configure()
    other = FakeModelServer().start()
    try:
        fake_model.script(*shell_turn(bash("echo a1 > a.txt"), bash("echo a2 >> a.txt"),
                                      bash("mkdir -p deep/er && echo x > deep/er/a.bin")))
        other.script(*shell_turn(bash("echo b > b.txt && chmod +x app.py"),
                                 bash("rm README.md")))
        procs = [_start(git_repo, fake_model, "-p", "alpha"),
                 _start(git_repo, other, "-p", "beta")]
        for proc in procs:
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, err
    finally:
        other.stop()

    db = user_data_dir() / "sessions.db"
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = SessionStore(db)
    try:
        sessions = {s.title: s.id for s in store.list(git_repo)}
        assert set(sessions) == {"alpha", "beta"}
        for title, session_id in sessions.items():
            messages = store.messages(session_id)
            users = [m["content"] for m in messages if m["role"] == "user"]
            assert users[0] == title and messages[-1] == {"role": "assistant",
                                                          "content": "Done."}
    finally:
        store.close()

    alpha = SessionCheckpoints(git_repo, sessions["alpha"])
    beta = SessionCheckpoints(git_repo, sessions["beta"])
    assert alpha.repo.git("fsck", "--no-dangling") == b""
    [a_turn], [b_turn] = alpha.turns(), beta.turns()
    assert a_turn.prompt == "alpha" and b_turn.prompt == "beta"
    assert a_turn.after is not None and b_turn.after is not None
    assert alpha.repo.git("show", f"{a_turn.after.tree}:a.txt") == b"a1\na2\n"
    assert alpha.repo.git("show", f"{b_turn.after.tree}:b.txt") == b"b\n"
    mode = alpha.repo.git("ls-tree", b_turn.after.tree, "app.py").split()[0]
    assert mode == b"100755"
    assert "README.md" not in alpha.repo.git("ls-tree", "--name-only",
                                             b_turn.after.tree).decode().split()

    undone = valarmind("undo", "--session", sessions["alpha"], cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert not (git_repo / "a.txt").exists() and not (git_repo / "deep").exists()
    assert valarmind("redo", "--session", sessions["alpha"], cwd=git_repo).returncode == 0
    assert (git_repo / "a.txt").read_bytes() == b"a1\na2\n"
