"""What each round of a goal tells the orchestrator."""

from __future__ import annotations

from valarmind_tui.core.events import GoalCheckState

RULES = """\
Work towards the goal in this round. When you stop, the harness itself runs the checks below on
the tree you leave and gives you their results in the next round: your own claims are not read.
The goal is done only when every check passes. Do not change the checks, their scripts or
configuration, and do not delete, skip, loosen or empty tests to make them pass: such changes
are detected and stop the goal."""


def round_prompt(goal: str, number: int, checks: list[GoalCheckState],
                 approved: list[str]) -> str:
    lines = [f"Goal (round {number}): {goal}", "", RULES, "", "Checks:"]
    for check in checks:
        lines.append(f"- `{check.command}`: {_verdict(check)}")
    failing = [c for c in checks if c.ran and not c.passed and c.tail]
    for check in failing:
        lines += ["", f"Output of `{check.command}` (last lines):", "```", check.tail, "```"]
    if approved:
        lines += ["", "The person approved these changes to the checks:",
                  *(f"- {a}" for a in approved)]
    return "\n".join(lines)


def _verdict(check: GoalCheckState) -> str:
    if not check.ran:
        return "not run yet"
    if check.passed:
        return f"passed (round {check.round})"
    if check.exit_code is None:
        return f"did not finish (round {check.round})"
    return f"failed with exit code {check.exit_code} (round {check.round})"
