"""A full disk (#37): `valarmind -p` with its HOME on a 2 MB tmpfs (mounted in a user and mount
namespace: `unshare -rm`, no privilege needed). The session store cannot be opened, or fills
up once the checkpoints' warm-up has copied the project: either way the answer reaches the
person, one line says the session is not kept, no traceback, no hang at exit. Before, every
such run died with `sqlite3.OperationalError: database or disk is full`. The warm-up no longer
copies a project bigger than a quarter of the free space, so a read-only question on a
nearly full disk keeps its session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import SHELL_AGENT, shell_turn, write
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import model_flags

RUN_S = 90


def _can_mount() -> bool:
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /mnt"],
                           capture_output=True, check=False)
    return probe.returncode == 0


def _run_on_tmpfs(repo: Path, fake_model: Any, free_kb: int, *, agent: str = "") -> tuple[
        subprocess.CompletedProcess[str], float]:
    """`valarmind -p` in bypass mode, HOME a 2 MB tmpfs with `free_kb` left (and `agent` as
    the user's shell.md, SHELL_AGENT by default)."""
    home = Path(os.environ["HOME"])
    config = home / ".config" / "valarmind"
    staged = home.parent / "shell.md"
    staged.write_text(agent or SHELL_AGENT)
    script = (
        f'mount -t tmpfs -o size=2m tmpfs "$HOME" && mkdir -p "{config}/agents" && '
        f'printf \'api_key_env = "FAKE_API_KEY"\\nsandbox = "off"\\n\' > "{config}/config.toml" '
        f'&& cp "{staged}" "{config}/agents/shell.md" && '
        f'(head -c $(( (2048 - {free_kb}) * 1024 )) /dev/zero > "$HOME/filler" || true) && '
        f'exec "$0" -m valarmind_tui -p "what is it" --permission-mode bypass '
        f'{" ".join(model_flags(fake_model))}')
    started = time.monotonic()
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, sys.executable], cwd=repo,
                          capture_output=True, text=True, timeout=RUN_S,
                          env={**os.environ, "FAKE_API_KEY": "sk-test"})
    return done, time.monotonic() - started


def test_a_full_home_still_answers_and_says_the_session_is_not_kept(
        git_repo: Path, fake_model: Any) -> None:
    if not _can_mount():
        pytest.skip("this machine lets no user namespace mount a tmpfs (unshare -rm)")
    fake_model.script(ScriptedTurn(text="The answer is 42."))
    done, took = _run_on_tmpfs(git_repo, fake_model, 40)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The answer is 42."
    told = [line for line in done.stderr.splitlines() if "session store" in line]
    assert len(told) == 1 and "memory only" in told[0]
    assert "disk is full" in told[0] or "disk I/O error" in told[0]  # SQLite's own reason
    assert "Traceback" not in done.stderr, done.stderr
    assert took < RUN_S


def test_a_read_only_question_does_not_fill_the_disk_with_checkpoints(
        git_repo: Path, fake_model: Any) -> None:
    """1.6 MB of project and 1 MB free: the warm-up used to copy the project into the
    checkpoints and leave the session store no room ("memory only" for a question that wrote
    nothing); now it leaves the copy to a first checkpoint that never comes."""
    if not _can_mount():
        pytest.skip("this machine lets no user namespace mount a tmpfs (unshare -rm)")
    for n in range(40):
        (git_repo / f"data{n}.txt").write_bytes(os.urandom(20_000).hex().encode())
    fake_model.script(ScriptedTurn(text="The answer is 42."))
    done, took = _run_on_tmpfs(git_repo, fake_model, 1000)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The answer is 42."
    assert "session store" not in done.stderr, done.stderr  # the session is kept
    assert "Traceback" not in done.stderr, done.stderr
    assert took < RUN_S


def test_a_write_on_a_full_home_is_made_and_its_checkpoint_skipped_with_a_warning(
        git_repo: Path, fake_model: Any) -> None:
    if not _can_mount():
        pytest.skip("this machine lets no user namespace mount a tmpfs (unshare -rm)")
    fake_model.script(*shell_turn(write("new.txt", "written\n")))
    done, took = _run_on_tmpfs(git_repo, fake_model, 40, agent=SHELL_AGENT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Done." and (git_repo / "new.txt").read_text() == "written\n"
    assert "Checkpoint failed" in done.stderr and "No space left on device" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert took < RUN_S
