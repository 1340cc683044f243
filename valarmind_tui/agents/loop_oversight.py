"""The reviewers an agent run meets besides the gate: intent-check when the main agent is about
to stop, error-acknowledge on the message after a failed tool call (seed 002).

Both nudge at most once for what they saw: intent-check once per run; error-acknowledge once per
failed batch of calls (its note replaces the next calls' results, or follows a final answer).
A reviewer without a verdict changes nothing.
"""

from __future__ import annotations

import json

from valarmind_tui.providers.base import AssistantTurn
from valarmind_tui.safety.gate.oversight_points import GateReviewers
from valarmind_tui.tools.planning.appeal_denial import AppealDenialTool, AppealDesk
from valarmind_tui.tools.registry import ToolRegistry

MAX_ERROR_CHARS = 1500
FAILED = ("error", "timeout")


class LoopReviews:
    """One agent run's view of the reviewers."""

    def __init__(self, reviewers: GateReviewers | None, agent_id: str, *,
                 final_stop: bool) -> None:
        self.reviewers = reviewers
        self.agent_id = agent_id
        self.final_stop = final_stop
        """Only the main agent's Stop is intent-checked (a specialist reports to it)."""
        self._intent_checked = False
        self._errors: list[str] = []

    def began(self, request: str) -> None:
        if self.reviewers is not None:
            self.reviewers.began(self.agent_id, request)

    def tool_finished(self, name: str, status: str, output: str) -> None:
        if status in FAILED:
            self._errors.append(f"{name} ({status}): {output[:MAX_ERROR_CHARS]}")

    async def ignored_error(self, turn: AssistantTurn) -> str | None:
        """The note to give the agent when its message passes over the last failed call."""
        errors, self._errors = self._errors, []
        if not errors or self.reviewers is None or not self.reviewers.enabled(
                "error_acknowledge"):
            return None
        calls = [f"{c.name} {json.dumps(c.arguments)[:500]}" for c in turn.tool_calls]
        reply = turn.text + ("\n\nNext tool calls:\n" + "\n".join(calls) if calls else "")
        verdict = await self.reviewers.check_error_acknowledged(
            self.agent_id, "\n\n".join(errors), reply or "(empty)")
        if verdict is None or verdict.decision != "ignored":
            return None
        return ("The error-acknowledge reviewer: your previous tool call failed and your message "
                f"goes on without addressing it ({verdict.reason or 'no reason given'}). Look at "
                "the error first: fix its cause, try another way, or tell the user.")

    async def intent_note(self, answer: str) -> str | None:
        """The reviewer's note when the final answer misses the request (once per run)."""
        if (not self.final_stop or self._intent_checked or self.reviewers is None
                or not self.reviewers.enabled("intent_check")):
            return None
        self._intent_checked = True
        verdict = await self.reviewers.check_intent(self.agent_id, answer)
        if verdict is None or verdict.decision != "not_done":
            return None
        return ("An intent reviewer found that your answer does not yet do what the user asked: "
                f"{verdict.reason or 'no reason given'}\nContinue the work, then answer again.")


def with_appeal_tool(tools: ToolRegistry, reviewers: GateReviewers | None,
                     desk: AppealDesk) -> ToolRegistry:
    """`tools` plus appeal_denial when the tool-appeal reviewer is on."""
    if reviewers is None or not reviewers.enabled("tool_appeal") or "appeal_denial" in tools:
        return tools
    return ToolRegistry([*tools, AppealDenialTool(desk)])

