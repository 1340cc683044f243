"""The gate's answer, and the tally of denials that stops a prompt going round in circles.

Denials are counted for the whole session by agent kind (`code-1` and `code-2` are both `code`)
and intent (the command's verbs, the paths written): the third denial of one intent raises
DenialEscalated, which stops the whole prompt. The person's own `!command`s are refused, never
counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from valarmind_tui.core.errors import DenialEscalated
from valarmind_tui.safety.gate.call import Call

ESCALATE_AFTER = 3
PERSON_AGENT_ID = "user"
"""The agent id of the person's own `!command`s (Session.run_shell): refused, never escalated."""


@dataclass(frozen=True)
class GateDecision:
    allowed: bool
    reason: str = ""
    feedback: str | None = None
    """What the person said when denying; goes back to the model."""
    params: Any = None
    """The arguments to run with when a hook replaced them (`updatedInput`)."""


class DenialTally:
    """Denials so far this session, by (agent kind, intent)."""

    def __init__(self) -> None:
        self._counts: Counter[tuple[str, str]] = Counter()

    def deny(self, call: Call, reason: str, feedback: str | None = None) -> GateDecision:
        """The denial, counted for each of the call's intents; the third of one raises
        DenialEscalated instead."""
        kind = call.kind
        if kind == PERSON_AGENT_ID:
            return GateDecision(False, reason, feedback)
        escalated: str | None = None
        for intent in call.intents:
            self._counts[(kind, intent)] += 1
            if self._counts[(kind, intent)] >= ESCALATE_AFTER and escalated is None:
                escalated = intent
        if escalated is not None:
            self._counts.pop((kind, escalated), None)
            raise DenialEscalated(
                f"Stopped: {ESCALATE_AFTER} similar attempts to use {call.tool.name} "
                f"({escalated}) by the {kind} agent were denied (last reason: {reason}"
                + (f" Feedback: {feedback}" if feedback else "")
                + "). The person needs to decide how to go on."
            )
        return GateDecision(False, reason, feedback)

    def counts(self) -> dict[tuple[str, str], int]:
        return dict(self._counts)

    def clear(self) -> None:
        self._counts.clear()
