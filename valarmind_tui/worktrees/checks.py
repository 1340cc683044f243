"""The checks that end an attempt and guard a merge: the person's `--check CMD` commands, or the
project's detected test command, each run by `bash -c` in the sandbox in a given tree.

`run_checks` is the one place a worktree's checks run; when goals with checks land (the goals
issue), it is the function to point at the goal's check runner.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.sandbox.wrap import Sandbox

CHECK_TIMEOUT_S = 900.0
TAIL_CHARS = 2000


@dataclass(frozen=True)
class CheckVerdict:
    command: str
    passed: bool
    exit_code: int | None
    """None: it ran out of time."""
    seconds: float
    tail: str
    """The end of its output (stdout and stderr), for the person."""


def default_checks(root: Path, *, allowed: bool) -> tuple[str, ...]:
    """The project's detected test command, when there is one and running it unasked is
    `allowed` (a trusted project, or `--allow-project-commands`): a repository's own commands
    run only with the person's say-so, as everywhere else."""
    if not allowed:
        return ()
    from valarmind_tui.context.project_commands import commands_of, detect_commands

    return commands_of(detect_commands(root), "test")


NO_CHECKS = ("no checks ran: give --check CMD (the project's detected test command runs only "
             "for a trusted project or with --allow-project-commands)")


def run_checks(root: Path, commands: Sequence[str], sandbox: Sandbox, *,
               timeout_s: float = CHECK_TIMEOUT_S) -> list[CheckVerdict]:
    """Each command in `root` (the writable tree), in order, all of them (a person wants every
    verdict, not the first failure)."""
    return [_run_one(root, command, sandbox, timeout_s) for command in commands]


def passed(verdicts: Sequence[CheckVerdict]) -> bool:
    return all(v.passed for v in verdicts)


def _run_one(root: Path, command: str, sandbox: Sandbox, timeout_s: float) -> CheckVerdict:
    argv = sandbox.wrap(["bash", "-c", command], root, env=child_env(root), root=root)
    started = time.monotonic()
    with sandbox.guard(root):
        try:
            done = subprocess.run(argv, cwd=root, capture_output=True, timeout=timeout_s,
                                  stdin=subprocess.DEVNULL, env=None if sandbox.active
                                  else child_env(root))
        except subprocess.TimeoutExpired as exc:
            said = (exc.stdout or b"") + (exc.stderr or b"")
            return CheckVerdict(command, False, None, time.monotonic() - started,
                                _tail(said) + f"\n[stopped after {timeout_s:g} s]")
    return CheckVerdict(command, done.returncode == 0, done.returncode,
                        time.monotonic() - started, _tail(done.stdout + done.stderr))


def _tail(output: bytes) -> str:
    return output.decode(errors="replace")[-TAIL_CHARS:]
