"""The gate's review steps: tool-approve before a person is asked, plan-validate on
exit_plan_mode, and tool-appeal of a reviewer's or a deny rule's denial.

Each step answers the gate with a small verdict, never more than the reviewer may decide:
- tool-approve's `approve` answers only an ordinary "ask" (never a protected or sensitive path,
  a deny rule that may apply, or a hook's ask); its `deny` refuses; `ask` or no verdict goes on
  to the person;
- plan-validate's `reject` sends the plan back to the agent before the person sees it;
- tool-appeal hears an agent once per denial: OVERTURN wins a one-time pass for the same call
  (appeals.AppealBook); a person's own denial is never appealable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valarmind_tui.safety.gate.appeals import AppealBook, Source
from valarmind_tui.safety.gate.call import Call
from valarmind_tui.safety.gate.oversight_points import GateReviewers
from valarmind_tui.safety.gate.verdict import Verdict

APPEAL_TOOL = "appeal_denial"
PLAN_TOOL = "exit_plan_mode"


@dataclass(frozen=True)
class StepVerdict:
    """What a review step tells the gate: allow or deny, with the reason to record."""

    action: Verdict
    """ALLOW or DENY (a reviewer's ask is no verdict: the gate goes on to the person)."""
    reason: str


def describe(call: Call, params: Any) -> str:
    """The call in one line for a reviewer: the command, or the tool and its arguments."""
    if call.subject.command is not None:
        return f"{call.tool.name}: {call.subject.command}"
    dumped = params.model_dump(mode="json") if hasattr(params, "model_dump") else params
    text = str(dumped)
    return f"{call.tool.name} {text[:1500]}"


def offer_appeal(reviewers: GateReviewers | None, book: AppealBook, call: Call, params: Any,
                 reason: str, source: Source, person_agent: str) -> str:
    """The denial's reason, with how to appeal it when tool-appeal is on (never for the
    person's own commands)."""
    if reviewers is None or not reviewers.enabled("tool_appeal") or call.kind == person_agent:
        return reason
    entry = book.offer(call.kind, call.tool.name, params, reason, source)
    return (f"{reason} If you are sure this denial is a mistake, you may appeal it once: call "
            f"{APPEAL_TOOL} with denial_id={entry.denial_id!r} and your justification.")


async def tool_approve(reviewers: GateReviewers | None, call: Call, params: Any,
                       why_asked: str, *, approvable: bool) -> StepVerdict | None:
    """tool-approve's answer, or None to go on to the person."""
    if reviewers is None or not reviewers.enabled("tool_approve"):
        return None
    verdict = await reviewers.approve_tool(call.agent_id, describe(call, params), why_asked)
    if verdict is None:
        return None
    said = f": {verdict.reason}" if verdict.reason else ""
    if verdict.decision == "deny":
        return StepVerdict(Verdict.DENY, f"Denied by the tool-approve reviewer{said}.")
    if verdict.decision == "approve" and approvable:
        return StepVerdict(Verdict.ALLOW, f"approved by the tool-approve reviewer{said}")
    return None


async def validate_plan(reviewers: GateReviewers | None, call: Call, params: Any
                        ) -> StepVerdict | None:
    """plan-validate on exit_plan_mode: a rejected plan goes back to the agent."""
    if (reviewers is None or call.tool.name != PLAN_TOOL
            or not reviewers.enabled("plan_validate")):
        return None
    plan = getattr(params, "plan", None)
    verdict = await reviewers.validate_plan(call.agent_id, plan if isinstance(plan, str) else "")
    if verdict is None or verdict.decision != "reject":
        return None
    why = verdict.reason or "it does not do what was asked"
    return StepVerdict(Verdict.DENY, (
        f"The plan-validate reviewer rejected the plan: {why}. Revise the plan to do what the "
        f"user asked and call {PLAN_TOOL} again."))


async def hear_appeal(reviewers: GateReviewers | None, book: AppealBook, agent_id: str,
                      agent_kind: str, denial_id: str, justification: str) -> tuple[bool, str]:
    """(overturned, what the agent reads). No verdict upholds the denial."""
    if reviewers is None or not reviewers.enabled("tool_appeal"):
        return False, "Appeals are not enabled in this session."
    entry = book.take(denial_id, agent_kind)
    if entry is None:
        return False, (f"There is no appealable denial {denial_id!r}: each reviewer's or deny "
                       "rule's denial may be appealed once, and a person's denial never.")
    verdict = await reviewers.appeal(agent_id, entry.summary, entry.reason, justification)
    if verdict is None or verdict.decision != "overturn":
        why = verdict.reason if verdict is not None and verdict.reason else "no reason given"
        return False, f"UPHOLD: the denial stands ({why}). Do not retry this call."
    book.grant(entry)
    then = ("the call will run" if entry.source == "reviewer"
            else "the person will be asked, since only a person may override their own rule")
    return True, (f"OVERTURN: {verdict.reason or 'the appeal was accepted'}. Make the very same "
                  f"call again (same tool, same arguments) and {then}.")
