"""A goal's checks: the commands that judge it, and running them.

The harness runs each check itself, after each round, through the bash tool's own process
handling and sandbox (its allowlisted environment, its process-group kill, bubblewrap when
active); never by the model's say-so. The checks are the person's (`--check`, or the project's
detected lint, type-check and test commands when they named none), so they do not go through
the gate: asking the person whether to run what they asked for would be noise, and the headless
policy would refuse them.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.goal.weakening import CheckSpec

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox

CHECK_KINDS = ("lint", "typecheck", "test")
"""The detected roles that become default checks, in the order they run."""
TAIL_LINES, TAIL_CHARS = 30, 3000
CHECK_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class GoalCheck:
    """One command that judges the goal."""

    command: str
    kind: str = "check"
    """test, lint, typecheck (detected), or check (named by the person)."""
    source: str | None = None
    """The file a detected check came from (its edits are watched); None for the person's."""

    def spec(self) -> CheckSpec:
        return CheckSpec(self.command, self.source)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckVerdict:
    """One run of one check on one tree."""

    command: str
    exit_code: int | None
    """None when it did not finish (timed out, killed)."""
    tail: str
    """The last lines of its output (stdout and stderr)."""
    seconds: float
    at: float
    round: int

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}


def default_checks(root: Path) -> list[GoalCheck]:
    """The project's detected lint, type-check and test commands (the one detector)."""
    from valarmind_tui.context.project_commands import detect_commands

    detected = {c.kind: c for c in detect_commands(root)}
    return [GoalCheck(detected[k].command, k, detected[k].source)
            for k in CHECK_KINDS if k in detected]


async def run_check(check: GoalCheck, root: Path, sandbox: Sandbox | None,
                    round_number: int, timeout: float = CHECK_TIMEOUT_S,
                    stop: asyncio.Event | None = None) -> CheckVerdict:
    """Run `check` in the project root as the bash tool runs a command; `stop` set kills it
    (its process group), like Esc kills a command the model runs."""
    from valarmind_tui.tools.base import ToolContext
    from valarmind_tui.tools.shell.bash import Bash, BashParams

    started, at = time.monotonic(), time.time()
    result = await Bash(sandbox=sandbox).execute(
        BashParams(command=check.command, timeout=timeout),
        ToolContext(project_root=root, agent_id="goal", sandbox=sandbox,
                    cancel_event=stop or asyncio.Event()))
    code = result.data.get("exit_code") if isinstance(result.data, dict) else None
    if code is None and not result.is_error:
        code = 0
    return CheckVerdict(check.command, code if isinstance(code, int) else None,
                        tail(result.output), round(time.monotonic() - started, 2), at,
                        round_number)


def tail(output: str) -> str:
    lines = output.rstrip().splitlines()[-TAIL_LINES:]
    return "\n".join(lines)[-TAIL_CHARS:]
