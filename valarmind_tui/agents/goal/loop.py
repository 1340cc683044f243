"""The goal loop: rounds of the orchestrator until the harness's checks pass on the final tree.

    checks on the starting tree (round 0)
    each round: budget? → one prompt (the checks' verdicts and output tails as its input) →
                the round's diff read for weakening (stop unless the person approves) →
                every check run by the harness on the tree the round left → done? stalled?

It ends `done` only when every check passed on the tree the last round left (the checks ran
after the last change); `stalled` after `stall_rounds` rounds in a row with no new passing check
and no new tree; `max_rounds`; `weakened` with the evidence; `budget` when the budget seam says
stop before a round; `cancelled`; `failed` when a round could not run. What a round is (a
session prompt, so a checkpoint), how a check runs and who approves are the caller's: this
module takes them as callables, so it runs the same under every face and in tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from valarmind_tui.agents.goal.checks import CheckVerdict, GoalCheck
from valarmind_tui.agents.goal.prompts import round_prompt
from valarmind_tui.agents.goal.state import GoalState, GoalStatus
from valarmind_tui.agents.goal.tree import TreeWatch
from valarmind_tui.agents.goal.weakening import Evidence, FileChange, find_weakening
from valarmind_tui.core.events import GoalCheckState, GoalUpdated, RunStatus

RunRound = Callable[[str], Awaitable[tuple[RunStatus, str]]]
"""One round: the prompt in, the prompt's status and answer out."""
RunCheck = Callable[[GoalCheck, int], Awaitable[CheckVerdict]]
"""Run one check on the tree as it is; the round number is recorded with the verdict."""
Approve = Callable[[Sequence[Evidence], int], Awaitable[bool]]
"""Ask the person whether a round's weakening is what they want (round number given)."""
BudgetCheck = Callable[[], str | None]
"""The budget's say before each round: None to go on, else why it stops (status `budget`)."""
Redetect = Callable[[], Sequence[GoalCheck]]
"""The project's detected checks now (a detected check's command must not change)."""


@dataclass
class GoalDeps:
    run_round: RunRound
    run_check: RunCheck
    tree: TreeWatch
    publish: Callable[[GoalUpdated], None]
    approve: Approve
    stall_rounds: int = 3
    max_rounds: int = 20
    budget: BudgetCheck | None = None
    redetect: Redetect | None = None
    stopped: Callable[[], bool] = lambda: False
    """The person stopped the goal (Esc, Ctrl+C) while no round was running."""


@dataclass(frozen=True)
class GoalOutcome:
    status: GoalStatus
    rounds: int
    checks: tuple[GoalCheckState, ...]
    answer: str = ""
    """The last round's answer."""
    evidence: tuple[Evidence, ...] = ()
    detail: str = ""

    def footer(self) -> str:
        """Which checks passed on the final tree, one line each."""
        lines = [f"Goal {self.status} after {self.rounds} round(s)"
                 + (f": {self.detail}" if self.detail else ".")]
        for check in self.checks:
            if not check.ran:
                verdict = "not run"
            elif check.passed:
                verdict = f"passed on the final tree ({check.seconds:.1f} s)"
            elif check.exit_code is None:
                verdict = "did not finish"
            else:
                verdict = f"failed (exit {check.exit_code}, round {check.round})"
            lines.append(f"- `{check.command}`: {verdict}")
        lines += [f"- weakened: {e.describe()}" for e in self.evidence]
        return "\n".join(lines)


@dataclass
class GoalLoop:
    deps: GoalDeps
    state: GoalState
    _answer: str = field(default="", init=False)

    async def run(self) -> GoalOutcome:
        try:
            return await self._run()
        except asyncio.CancelledError:
            self.deps.publish(self.state.event(GoalStatus.CANCELLED, detail="cancelled"))
            raise

    async def _run(self) -> GoalOutcome:
        state, deps = self.state, self.deps
        resumed = bool(state.tree)
        deps.publish(state.event(GoalStatus.RUNNING,
                                 detail=f"resumed at round {state.round + 1}" if resumed
                                 else "started"))
        if not resumed:
            state.tree = await deps.tree.snapshot()
            state.seen_trees.add(state.tree)
            verdicts = await self._run_checks(0)
            if deps.stopped():
                return self._end(GoalStatus.CANCELLED, "stopped during the first checks")
            state.record(verdicts)
            deps.publish(state.event(GoalStatus.RUNNING, detail="checks ran on the start tree"))
        while True:
            if deps.stopped():
                return self._end(GoalStatus.CANCELLED, "stopped by the person")
            if state.round >= deps.max_rounds:
                return self._end(GoalStatus.MAX_ROUNDS, f"{deps.max_rounds} rounds ran")
            why = deps.budget() if deps.budget is not None else None
            if why:
                return self._end(GoalStatus.BUDGET, why)
            ended = await self._round(state.round + 1)
            if ended is not None:
                return ended

    async def _round(self, number: int) -> GoalOutcome | None:
        state, deps = self.state, self.deps
        status, self._answer = await deps.run_round(
            round_prompt(state.text, number, state.checks, state.approved))
        if status == RunStatus.CANCELLED:
            return self._end(GoalStatus.CANCELLED, f"round {number} was cancelled")
        if status == GoalStatus.BUDGET.value:  # a prompt the budget stopped mid-round
            return self._end(GoalStatus.BUDGET, f"round {number} ran out of budget")
        if status == RunStatus.FAILED:
            return self._end(GoalStatus.FAILED, f"round {number} failed: {self._answer[:300]}")
        after = await deps.tree.snapshot()
        changes = await deps.tree.changes(state.tree, after)
        evidence = await asyncio.to_thread(self._weakening, changes)  # parses: off the loop
        state.round = number
        if evidence and not await deps.approve(evidence, number):
            state.tree = after
            return self._end(GoalStatus.WEAKENED, "a round weakened the checks", evidence)
        state.approved += [e.describe() for e in evidence]
        verdicts = await self._run_checks(number)
        if deps.stopped():  # a check killed half-way is no verdict
            return self._end(GoalStatus.CANCELLED, f"stopped during round {number}'s checks")
        new_passes = state.record(verdicts)
        settled = await deps.tree.snapshot()
        new_tree = after not in state.seen_trees
        state.seen_trees |= {after, settled}
        state.tree = settled
        state.stalled_rounds = 0 if (new_passes or new_tree) else state.stalled_rounds + 1
        if state.all_passed:
            return self._end(GoalStatus.DONE, "every check passed on the final tree")
        if state.stalled_rounds >= deps.stall_rounds:
            return self._end(GoalStatus.STALLED, f"{state.stalled_rounds} rounds with no new "
                                                 "passing check and no new change")
        deps.publish(state.event(GoalStatus.RUNNING, detail=f"round {number} checked"))
        return None

    async def _run_checks(self, number: int) -> list[CheckVerdict]:
        return [await self.deps.run_check(check, number) for check in self.state.specs]

    def _weakening(self, changes: list[FileChange]) -> list[Evidence]:
        if not changes:
            return []
        specs = [c.spec() for c in self.state.specs]
        found = find_weakening(changes, specs)
        if self.deps.redetect is not None and any(c.source for c in self.state.specs):
            found += _changed_commands(self.state.specs, self.deps.redetect(), changes)
        return found

    def _end(self, status: GoalStatus, detail: str,
             evidence: Sequence[Evidence] = ()) -> GoalOutcome:
        self.deps.publish(self.state.event(status, evidence=[e.describe() for e in evidence],
                                           detail=detail))
        return GoalOutcome(status, self.state.round, tuple(self.state.checks), self._answer,
                           tuple(evidence), detail)


def _changed_commands(checks: Sequence[GoalCheck], detected: Sequence[GoalCheck],
                      changes: list[FileChange]) -> list[Evidence]:
    """A detected check whose role the detector now reads as another command: the round
    edited what the check was detected from (or added a source that outranks it)."""
    now = {c.kind: c for c in detected}
    changed_paths = {c.path for c in changes}
    found = []
    for check in checks:
        if check.source is None:
            continue
        current = now.get(check.kind)
        if current is not None and current.command == check.command:
            continue
        if check.source not in changed_paths and (current is None
                                                  or current.source not in changed_paths):
            continue  # the detector moved for another reason than this round
        path = current.source if current is not None and current.source in changed_paths \
            else check.source
        found.append(Evidence(path or "", 1, "check_command_changed", (
            f"the {check.kind} check `{check.command}` would now be detected as "
            + (f"`{current.command}`" if current is not None else "nothing"))))
    return found
