"""exit_plan_mode {plan}: present the plan for approval; approved → back to default mode.

Risk READ so that it runs in plan mode. It asks through the session's approver
(`ctx.services.approver`, the plan in the request's `diff`) and switches the session's mode with
`ctx.services.set_mode`. Only the main agent has that switch: a specialist (`for_specialist`)
cannot leave plan mode, so it is told so before anyone is asked.
"""

from __future__ import annotations

import uuid

from pydantic import Field

from valarmind_tui.safety.gate.approval import ApprovalRequest, PermissionMode
from valarmind_tui.tools.base import Preview, Risk, Tool, ToolContext, ToolParams, ToolResult


class PlanParams(ToolParams):
    plan: str = Field(description="The plan (Markdown): steps, files to change, risks, checks.")


class ExitPlanModeTool(Tool[PlanParams]):
    name = "exit_plan_mode"
    risk = Risk.READ
    description = (
        "In plan mode: present your finished plan to the user for approval. If approved, plan "
        "mode ends and you carry the plan out; if rejected, revise it with the user's feedback."
    )

    Params = PlanParams

    async def preview(self, params: PlanParams, ctx: ToolContext) -> Preview:
        return Preview(summary="Approve this plan and leave plan mode?", diff=params.plan)

    async def run(self, params: PlanParams, ctx: ToolContext) -> ToolResult:
        services = ctx.services
        approver, set_mode = services.approver, services.set_mode
        if approver is None or set_mode is None:
            return ToolResult.error("only the main agent can leave plan mode, and only when a "
                                    "person can approve it; give the plan as your final answer "
                                    "instead")
        if services.get_mode is not None and services.get_mode() != PermissionMode.PLAN:
            return ToolResult("The session is not in plan mode; go ahead with the work.")
        request = ApprovalRequest(
            request_id=f"plan-{uuid.uuid4().hex[:8]}", agent_id=ctx.agent_id,
            tool=self.name, summary="Approve this plan and leave plan mode?",
            reason="plan ready for review", diff=params.plan,
        )
        answer = await approver.request(request)
        if not answer.allowed:
            feedback = answer.feedback or "no feedback given"
            return ToolResult(
                f"The user rejected the plan. Feedback: {feedback}\n"
                "Stay in plan mode: revise the plan accordingly and call exit_plan_mode again.",
                data={"approved": False, "feedback": answer.feedback},
            )
        set_mode(PermissionMode.DEFAULT)
        return ToolResult(
            "The user approved the plan. Plan mode is off: carry out the plan now.",
            data={"approved": True},
        )
