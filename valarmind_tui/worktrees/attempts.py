"""Best-of-N: one task, N attempts at once, each a headless `valarmind -p` process in a worktree
of its own (the same model or one per `models`), each ended by the checks run in its worktree.

Processes, not sessions in this one: each attempt gets its own event loop, model process, gate
and checkpoints, and a crash or a stuck attempt takes nothing else down. The attempts' worktrees
stay (their branches too) until removed, whichever is picked.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.checks import CheckVerdict, passed
from valarmind_tui.worktrees.git import RepoGit
from valarmind_tui.worktrees.scratch import check_tree
from valarmind_tui.worktrees.worktree import Worktree, create

ATTEMPT_TIMEOUT_S = 3600.0
OUTPUT_TAIL = 4000


@dataclass(frozen=True)
class AttemptPlan:
    task: str
    count: int
    models: tuple[str, ...] = ()
    """One model (or alias) per attempt, cycled; empty: the configured model for all."""
    checks: tuple[str, ...] = ()
    child_flags: tuple[str, ...] = ()
    """Flags every attempt's `valarmind -p` gets (--api-base, --permission-mode...)."""
    prefix: str = "attempt"
    """Attempt i's worktree is `<prefix>-<i>`."""
    timeout_s: float = ATTEMPT_TIMEOUT_S

    def model_of(self, i: int) -> str | None:
        return self.models[i % len(self.models)] if self.models else None


@dataclass
class Attempt:
    worktree: Worktree
    model: str | None
    seconds: float = 0.0
    ended_at: float = 0.0
    """time.monotonic() when its checks ended: "first to pass" is by this."""
    exit_code: int | None = None
    """The process's exit code; None when it ran out of time."""
    cost_usd: float | None = None
    tokens: int | None = None
    verdicts: list[CheckVerdict] = field(default_factory=list)
    tree: str = ""
    changed: tuple[str, ...] = ()
    diffstat: str = ""
    said: str = ""
    """The end of what the process printed on stderr (why it failed)."""

    @property
    def name(self) -> str:
        return self.worktree.name

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and bool(self.changed) and passed(self.verdicts)


def child_flags(*, mode: str | None, api_base: str | None, trusted: bool,
                allow_project_commands: bool = False) -> tuple[str, ...]:
    """What every attempt's `valarmind -p` is told: the mode (accept-edits unless said: an
    attempt that may not edit is no attempt), the endpoint, whether the project's own config
    loads (as it does for the person's run)."""
    flags = [f"--permission-mode={mode or 'accept-edits'}"]
    if api_base:
        flags.append(f"--api-base={api_base}")
    if allow_project_commands:
        flags.append("--allow-project-commands")
    if trusted:
        flags.append("--trust-project")
    return tuple(flags)


def child_command() -> list[str]:
    """How an attempt starts ValarMind: this interpreter, this package."""
    return [sys.executable, "-m", "valarmind_tui"]


AttemptWatcher = Callable[[Attempt, bool], None]
"""Told (attempt, False) when an attempt starts and (attempt, True) when its checks ended."""


async def run_attempts(project_root: Path, plan: AttemptPlan, sandbox: Sandbox, *,
                       command: Sequence[str] | None = None,
                       watch: AttemptWatcher | None = None) -> list[Attempt]:
    """Create the worktrees, run every attempt at once, check each; in attempt order."""
    attempts = [Attempt(create(project_root, f"{plan.prefix}-{i + 1}"), plan.model_of(i))
                for i in range(plan.count)]
    argv = list(command or child_command())
    await asyncio.gather(*(_run_one(a, plan, sandbox, argv, watch) for a in attempts))
    return attempts


async def _run_one(attempt: Attempt, plan: AttemptPlan, sandbox: Sandbox,
                   argv: list[str], watch: AttemptWatcher | None) -> None:
    path = attempt.worktree.path
    if watch is not None:
        watch(attempt, False)
    flags = [f"--print={plan.task}", "--cwd", str(path), "--output-format", "json",
             *plan.child_flags, *([f"--model={attempt.model}"] if attempt.model else [])]
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *argv, *flags, cwd=path, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=dict(os.environ))
    try:
        out, err = await asyncio.wait_for(process.communicate(), plan.timeout_s)
        attempt.exit_code = process.returncode
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
    finally:
        if process.returncode is None:  # cancelled (ctrl+c, /fork stopped): no orphan left
            process.kill()
    attempt.seconds = time.monotonic() - started
    attempt.said = err.decode(errors="replace")[-OUTPUT_TAIL:]
    _read_summary(attempt, out)
    await asyncio.to_thread(_finish, attempt, plan.checks, sandbox)
    attempt.ended_at = time.monotonic()
    if watch is not None:
        watch(attempt, True)


def _read_summary(attempt: Attempt, out: bytes) -> None:
    try:
        summary = json.loads(out.decode(errors="replace").strip().splitlines()[-1])
        usage = summary.get("usage") or {}
    except (ValueError, IndexError, AttributeError):
        return
    if isinstance(usage.get("cost_usd"), int | float):
        attempt.cost_usd = float(usage["cost_usd"])
    tokens = [usage.get(k) for k in ("prompt_tokens", "completion_tokens")]
    if all(isinstance(t, int) for t in tokens):
        attempt.tokens = sum(t for t in tokens if isinstance(t, int))


def _finish(attempt: Attempt, checks: Sequence[str], sandbox: Sandbox) -> None:
    """What the attempt changed, then its checks on that tree in a scratch worktree (only when
    it changed something)."""
    inside = RepoGit.of(attempt.worktree.path)
    attempt.tree = inside.state().full
    base = inside.tree_of(attempt.worktree.base)
    attempt.changed = tuple(inside.changed(base, attempt.tree))
    attempt.diffstat = inside.text("diff-tree", "--stat=100", "--no-renames", base, attempt.tree)
    if attempt.changed and attempt.exit_code == 0:
        attempt.verdicts = check_tree(inside, attempt.tree, checks, sandbox)
