"""/goal: the orchestrator works in rounds until the goal's checks pass (agents/goal/).

    /goal [--check CMD]... [--approve-weakening] TEXT     a new goal
    /goal                                                  continue this session's unfinished goal

Without `--check` the checks are the project's detected lint, type-check and test commands.
Each round is one prompt of this session (`ctx.submit`: a checkpoint, so /rewind reaches it);
the checks run in the session's sandbox; a weakening round is asked of the person through the
session's approver as a protected request, so a headless policy never approves it (only
`--approve-weakening` does). `valarmind goal` and `-p --goal` call `run_goal` directly.
"""

from __future__ import annotations

import asyncio
import itertools
import shlex
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.core.errors import UsageError
from valarmind_tui.core.events import RunStatus
from valarmind_tui.safety.gate.approval import ApprovalRequest
from valarmind_tui.spending.limits import prompt_limits

if TYPE_CHECKING:
    from valarmind_tui.agents.goal.checks import CheckVerdict, GoalCheck
    from valarmind_tui.agents.goal.loop import BudgetCheck, GoalOutcome
    from valarmind_tui.agents.goal.state import GoalState
    from valarmind_tui.agents.goal.weakening import Evidence
    from valarmind_tui.commands.api import CommandContext

# agents/goal/ (its test readers, tree-sitter's syntax...) is imported when a goal runs: every
# session registers /goal, few run one.

USAGE = "[--check CMD]... [--approve-weakening] TEXT"
PROTECTED = "the goal's checks"
"""The approval request's protected rule: only a person may allow a weakening round."""


@dataclass(frozen=True)
class GoalRequest:
    text: str
    """Empty: continue the session's unfinished goal."""
    checks: tuple[str, ...] = ()
    approve_weakening: bool = False
    max_rounds: int | None = None
    budget: BudgetCheck | None = field(default=None, compare=False)
    """The budget seam: asked before each round (None: no budget)."""


def parse_request(args: str) -> GoalRequest:
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise UsageError(f"/goal: {exc}. Usage: /goal {USAGE}") from None
    checks: list[str] = []
    approve = False
    rest: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--check" and i + 1 < len(words):
            checks.append(words[i + 1])
            i += 2
            continue
        if word == "--approve-weakening":
            approve = True
        elif word == "--":
            rest += words[i + 1:]
            break
        else:
            rest.append(word)
        i += 1
    return GoalRequest(" ".join(rest), tuple(checks), approve)


async def goal(ctx: CommandContext, args: str) -> CommandResult:
    from valarmind_tui.agents.goal.state import GoalStatus

    outcome = await run_goal(ctx, parse_request(args))
    text = outcome.answer.rstrip()
    return CommandResult(f"{text}\n\n{outcome.footer()}".lstrip(),
                         ok=outcome.status == GoalStatus.DONE, data=outcome)


async def run_goal(ctx: CommandContext, request: GoalRequest) -> GoalOutcome:
    """Start (or continue) a goal in `ctx`'s session and run it to its end."""
    from valarmind_tui.agents.goal.checks import default_checks, run_check
    from valarmind_tui.agents.goal.loop import GoalDeps, GoalLoop
    from valarmind_tui.agents.goal.tree import TreeWatch

    if ctx.offline:
        raise UsageError("/goal needs a model: set one with /model or `model` in config.")
    state = _state(ctx, request)
    settings = ctx.settings
    root, sandbox = ctx.project_root, ctx.sandbox
    stop = asyncio.Event()

    spending = ctx.spending
    rounds = itertools.count(state.round + 1)

    async def run_round(prompt: str) -> tuple[RunStatus, str]:
        spending.set_round(next(rounds))  # the ledger's rows of this round say so
        answer = await ctx.submit(prompt)
        return answer.status, answer.text

    def budget() -> str | None:
        """The goal's own scope (the prompt budget, `--max-*`, for the whole goal), the
        session's and the day's; then any budget the caller added."""
        stop = spending.check()
        if stop is not None:
            return stop.message()
        return request.budget() if request.budget is not None else None

    async def check(one: GoalCheck, number: int) -> CheckVerdict:
        return await run_check(one, root, sandbox, number, stop=stop)

    async def approve(evidence: Sequence[Evidence], number: int) -> bool:
        if request.approve_weakening:
            return True
        return await _ask(ctx, evidence, number)

    deps = GoalDeps(
        run_round=run_round, run_check=check, tree=TreeWatch(ctx.checkpoints.repo),
        publish=ctx.bus.publish, approve=approve, stall_rounds=settings.goal_stall_rounds,
        max_rounds=request.max_rounds or settings.goal_max_rounds, budget=budget,
        redetect=lambda: default_checks(root), stopped=stop.is_set)
    spending.open_scope("goal", prompt_limits(spending.budget))
    try:
        with ctx.hold(stop.set):  # busy to other prompts; Esc between rounds stops the checks
            return await GoalLoop(deps, state).run()
    finally:
        spending.set_round(None)
        spending.end_scope("goal")


def _state(ctx: CommandContext, request: GoalRequest) -> GoalState:
    from valarmind_tui.agents.goal.checks import GoalCheck, default_checks
    from valarmind_tui.agents.goal.state import GoalState, resumable

    unfinished = None
    if ctx.store is not None and ctx.session_id is not None:
        unfinished = resumable(ctx.store.events(ctx.session_id))
    if unfinished is not None and request.text in ("", unfinished.text):
        return unfinished
    if not request.text:
        raise UsageError(f"/goal: say what the goal is. Usage: /goal {USAGE}")
    checks = ([GoalCheck(c) for c in request.checks] if request.checks
              else default_checks(ctx.project_root))
    if not checks:
        raise UsageError("/goal: no lint, type-check or test command was detected in this "
                         "project; name the checks with --check \"CMD\".")
    return GoalState.fresh(request.text, checks)


async def _ask(ctx: CommandContext, evidence: Sequence[Evidence], number: int) -> bool:
    lines = "\n".join(f"- {e.describe()}" for e in evidence)
    answer = await ctx.approver.request(ApprovalRequest(
        request_id=f"goal-{uuid.uuid4().hex[:8]}", agent_id="main", tool="goal",
        summary=f"Goal round {number} changed what judges it",
        reason=(f"Round {number} made changes that weaken the goal's checks:\n{lines}\n"
                "Allow them, and the goal goes on; deny, and it stops as `weakened` (the "
                "round's files stay as they are: /rewind takes them back)."),
        protected=PROTECTED))
    return answer.allowed


COMMANDS = (
    Command("goal", "work in rounds until the checks pass (tests, lint, type-check)",
            usage=USAGE, idle_only=True, handler=goal),
)
