"""Where the gate and the agent loop ask the model reviewers (seed 002), as a Protocol.

The implementation (valarmind_tui.oversight.Reviewers) calls models and so sits above safety in
the layers. Every method returns None for "no opinion": the reviewer is off, its budget is spent,
the model failed or answered something that is not a verdict. The callers treat None as if the
reviewer did not exist, so a broken reviewer asks the person (tool-approve), upholds the denial
(tool-appeal) or lets the agent go on (the others); it never approves anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class ReviewVerdict:
    """A reviewer's decision (one of the words its prompt allows) and why."""

    decision: str
    reason: str = ""


class GateReviewers(Protocol):
    """The review points around a tool call and at the end of an agent's turn."""

    def enabled(self, name: str) -> bool:
        """Whether the reviewer (`tool_approve`, `tool_appeal`...) is switched on."""
        ...

    def usage(self) -> Mapping[str, Any]:
        """Per reviewer that ran, what it spent (`calls`, `prompt_tokens`,
        `completion_tokens`, `cost_usd`): /cost shows it."""
        ...

    def began(self, agent_id: str, request: str) -> None:
        """An agent started on `request` (what the reviewers judge against)."""
        ...

    async def approve_tool(self, agent_id: str, call: str, why_asked: str
                           ) -> ReviewVerdict | None:
        """tool-approve: `approve`, `deny` or `ask`."""
        ...

    async def appeal(self, agent_id: str, call: str, denial: str, justification: str
                     ) -> ReviewVerdict | None:
        """tool-appeal: `overturn` or `uphold`."""
        ...

    async def validate_plan(self, agent_id: str, plan: str) -> ReviewVerdict | None:
        """plan-validate: `accept` or `reject`."""
        ...

    async def check_intent(self, agent_id: str, answer: str) -> ReviewVerdict | None:
        """intent-check at Stop: `done` or `not_done`."""
        ...

    async def check_error_acknowledged(self, agent_id: str, error: str, reply: str
                                       ) -> ReviewVerdict | None:
        """error-acknowledge: `acknowledged` or `ignored`."""
        ...
