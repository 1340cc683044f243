"""The goal's rounds and checks in the task pane: each check's last verdict and when it ran.
Hidden until a goal starts (/goal)."""

from __future__ import annotations

import time

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from valarmind_tui.core.events import GoalCheckState, GoalUpdated

_ENDED_STYLE = {"done": "$success", "running": "$accent"}


class GoalPanel(Static):
    """The last GoalUpdated, re-rendered whole (a goal has a few checks)."""

    DEFAULT_CSS = """
    GoalPanel { height: auto; padding: 0 1; display: none; }
    GoalPanel.-active { display: block; }
    """

    goal: reactive[GoalUpdated | None] = reactive(None, layout=True)

    def watch_goal(self, goal: GoalUpdated | None) -> None:
        self.set_class(goal is not None, "-active")

    def render(self) -> Content:
        goal = self.goal
        if goal is None:
            return Content("")
        text = goal.text if len(goal.text) <= 60 else goal.text[:59] + "…"
        parts: list[Content | tuple[str, str] | str] = [
            ("◎ ", _ENDED_STYLE.get(goal.status, "$warning")), (text, "bold"),
            (f"\n  round {goal.round} · {goal.status.replace('_', ' ')}", "$text-muted"),
        ]
        for check in goal.checks:
            parts += ["\n", *_check_row(check)]
        if goal.evidence:
            parts.append((f"\n  weakened: {goal.evidence[0]}", "$error"))
        return Content.assemble(*parts)


def _check_row(check: GoalCheckState) -> list[tuple[str, str] | str]:
    command = check.command if len(check.command) <= 24 else check.command[:23] + "…"
    if not check.ran:
        return [("○ ", "$text-muted"), command, ("  not run", "$text-muted")]
    when = time.strftime("%H:%M:%S", time.localtime(check.at))
    if check.passed:
        return [("✓ ", "$success"), command,
                (f"  r{check.round} {check.seconds:.1f}s {when}", "$text-muted")]
    code = "timeout" if check.exit_code is None else f"exit {check.exit_code}"
    return [("✗ ", "$error"), command, (f"  r{check.round} {code} {when}", "$text-muted")]
