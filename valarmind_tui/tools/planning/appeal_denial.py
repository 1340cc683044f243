"""appeal_denial {denial_id, justification}: appeal a reviewer's or a deny rule's denial, once.

Offered to agents only when the tool-appeal reviewer is on (config `[reviewers.tool_appeal]`).
The gate hears the appeal (safety.gate_reviews.hear_appeal); the tool only carries it.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import Field

from valarmind_tui.tools.base import Risk, Tool, ToolContext, ToolParams, ToolResult


class AppealDesk(Protocol):
    """What hears an appeal (the PermissionGate)."""

    async def appeal(self, denial_id: str, justification: str, agent_id: str
                     ) -> tuple[bool, str]: ...


class AppealParams(ToolParams):
    denial_id: str = Field(description="The id given in the denial, e.g. denial-1a2b3c4d.")
    justification: str = Field(min_length=1, description=(
        "Why the denied call is needed for the user's request and safe."))


class AppealDenialTool(Tool[AppealParams]):
    name = "appeal_denial"
    risk = Risk.READ
    description = (
        "Appeal a denial that named a denial_id (from the tool-approve reviewer or a deny rule), "
        "once, when you are sure it is a mistake: give the id and why the call is needed for the "
        "user's request. OVERTURN: make the same call again. UPHOLD: do not retry it. A person's "
        "own denial cannot be appealed."
    )

    Params = AppealParams

    def __init__(self, desk: AppealDesk) -> None:
        self.desk = desk

    async def run(self, params: AppealParams, ctx: ToolContext) -> ToolResult:
        overturned, text = await self.desk.appeal(params.denial_id, params.justification,
                                                  ctx.agent_id)
        return ToolResult(text, data={"overturned": overturned})
