"""What a goal remembers between rounds, and how it ended.

The state travels as GoalUpdated events (one when it starts, one per round, one at the end),
which the session store keeps like every event: `resumable` finds a goal whose last event is
still `running` (or `budget`, `cancelled`: no verdict yet), so a killed process's goal continues
where its last round ended.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from valarmind_tui.agents.goal.checks import CheckVerdict, GoalCheck
from valarmind_tui.core.events import GoalCheckState, GoalUpdated, event_from_dict


class GoalStatus(StrEnum):
    """How a goal ended (running while it has not)."""

    RUNNING = "running"
    DONE = "done"
    """Every check passed on the tree the last round left."""
    STALLED = "stalled"
    """`goal_stall_rounds` rounds in a row with no new passing check and no new change."""
    WEAKENED = "weakened"
    """A round weakened the judge (evidence) and the person did not approve it."""
    BUDGET = "budget"
    """The budget said stop before a round."""
    MAX_ROUNDS = "max_rounds"
    """`goal_max_rounds` rounds ran and a check still fails."""
    CANCELLED = "cancelled"
    FAILED = "failed"
    """A round could not run (no model, a provider error)."""


UNFINISHED = (GoalStatus.RUNNING, GoalStatus.BUDGET, GoalStatus.CANCELLED)
"""A goal that stopped without a verdict (killed, out of budget, cancelled): it can go on."""


@dataclass
class GoalState:
    """A goal between rounds."""

    text: str
    checks: list[GoalCheckState]
    goal_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    round: int = 0
    tree: str = ""
    stalled_rounds: int = 0
    passed_ever: set[str] = field(default_factory=set)
    seen_trees: set[str] = field(default_factory=set)
    """Every tree a round left: going back to one is no new change."""
    approved: list[str] = field(default_factory=list)
    """Weakening the person approved (said again in the next rounds' input)."""

    @classmethod
    def fresh(cls, text: str, checks: Iterable[GoalCheck]) -> GoalState:
        return cls(text, [GoalCheckState(c.command, c.kind, c.source) for c in checks])

    @property
    def specs(self) -> list[GoalCheck]:
        return [GoalCheck(c.command, c.kind, c.source) for c in self.checks]

    def record(self, verdicts: list[CheckVerdict]) -> set[str]:
        """Take a round's verdicts; returns the checks that passed for the first time."""
        by_command = {v.command: v for v in verdicts}
        self.checks = [replace(c, exit_code=v.exit_code, ran=True, seconds=v.seconds, at=v.at,
                               round=v.round, tail=v.tail)
                       if (v := by_command.get(c.command)) is not None else c
                       for c in self.checks]
        passed = {c.command for c in self.checks if c.passed}
        new = passed - self.passed_ever
        self.passed_ever |= passed
        return new

    @property
    def all_passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    def event(self, status: GoalStatus, *, evidence: Iterable[str] = (),
              detail: str = "") -> GoalUpdated:
        return GoalUpdated(goal_id=self.goal_id, text=self.text, status=status.value,
                           round=self.round, checks=tuple(self.checks), tree=self.tree,
                           stalled_rounds=self.stalled_rounds,
                           passed_ever=tuple(sorted(self.passed_ever)),
                           evidence=tuple(evidence), detail=detail)


def resumable(stored_events: Iterable[dict[str, Any]]) -> GoalState | None:
    """The last goal of a stored session when it stopped without a verdict (its process was
    killed, its budget ran out, the person cancelled it)."""
    rounds: dict[str, list[GoalUpdated]] = {}
    last: GoalUpdated | None = None
    for data in stored_events:
        if data.get("type") != "goal_updated":
            continue
        event = event_from_dict(data)
        assert isinstance(event, GoalUpdated)
        rounds.setdefault(event.goal_id, []).append(event)
        last = event
    if last is None or last.status not in UNFINISHED:
        return None
    return GoalState(
        last.text, list(last.checks), goal_id=last.goal_id, round=last.round, tree=last.tree,
        stalled_rounds=last.stalled_rounds, passed_ever=set(last.passed_ever),
        seen_trees={e.tree for e in rounds[last.goal_id] if e.tree})


def progress_line(event: GoalUpdated) -> str:
    """One line for a face: `goal · round 2 · running: 1/2 checks pass (pytest -q ✗)`."""
    passed = sum(c.passed for c in event.checks)
    failing = ", ".join(c.command for c in event.checks if c.ran and not c.passed)
    line = (f"goal · round {event.round} · {event.status.replace('_', ' ')}: "
            f"{passed}/{len(event.checks)} checks pass")
    if failing:
        line += f" (failing: {failing})"
    if event.detail:
        line += f" — {event.detail}"
    return line
