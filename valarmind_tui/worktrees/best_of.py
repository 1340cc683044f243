"""Best-of-N from start to merge: the attempts, the comparison, the pick (the person's, or a
policy's), and the pick merged back the trusted way (merge.py), its checks run again on the
merged result."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.worktrees.attempts import Attempt, AttemptPlan, AttemptWatcher, run_attempts
from valarmind_tui.worktrees.comparison import Policy, describe, disagreements, pick
from valarmind_tui.worktrees.git import RepoGit
from valarmind_tui.worktrees.merge import MergeReport, merge


@dataclass
class BestOfResult:
    attempts: list[Attempt]
    disagree: list[str]
    picked: Attempt | None = None
    merge: MergeReport | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def merged(self) -> bool:
        return self.merge is not None and self.merge.merged


def attempt_prefix(now: float | None = None) -> str:
    """A fresh name stem: `best-<HHMMSS>`, plus the worktree's number."""
    return "best-" + time.strftime("%m%d-%H%M%S", time.localtime(now))


async def compare_attempts(project_root: Path, plan: AttemptPlan, sandbox: Sandbox, *,
                           command: Sequence[str] | None = None,
                           watch: AttemptWatcher | None = None) -> BestOfResult:
    """Run the attempts and compare them; nothing merged."""
    attempts = await run_attempts(project_root, plan, sandbox, command=command, watch=watch)
    disagree = disagreements(RepoGit.of(project_root), attempts)
    return BestOfResult(attempts, disagree, lines=describe(attempts, disagree))


async def best_of(project_root: Path, plan: AttemptPlan, sandbox: Sandbox, policy: Policy, *,
                  command: Sequence[str] | None = None) -> BestOfResult:
    """Compare, pick by `policy`, merge the pick."""
    result = await compare_attempts(project_root, plan, sandbox, command=command)
    result.picked = pick(result.attempts, policy)
    if result.picked is None:
        result.lines.append("no attempt passed its checks: nothing merged; the worktrees stay "
                            "(valarmind worktrees lists them)")
        return result
    result.lines.append(f"picked {result.picked.name} ({policy})")
    result.merge = await asyncio.to_thread(merge, project_root, result.picked.name,
                                           plan.checks, sandbox)
    result.lines += result.merge.lines()
    left = [a.name for a in result.attempts if a is not result.picked]
    if left:
        result.lines.append("kept until you remove them: " + ", ".join(left))
    return result
