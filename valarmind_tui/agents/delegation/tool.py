"""delegate {agent, task, context, timeout_s, also}: the orchestrator's way to start specialists.

The tool only turns its arguments into DelegationRequests; the delegator the agent was given
(`ctx.services.delegator`, agents.delegate.Delegator) checks and runs them. An agent without
one (a specialist that may not spawn) is told so.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from valarmind_tui.tools.base import Risk, Tool, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.services import DelegationRequest


class DelegateItem(ToolParams):
    agent: str = Field(description="Specialist name.")
    task: str = Field(description="Self-contained task.")
    context: str = Field("", description="What the specialist needs to know.")
    timeout_s: float | None = Field(
        None, gt=0, description="Seconds it may work (default: its own; capped at its maximum).")
    files: list[str] = Field(
        default_factory=list,
        description="For an agent that changes files: the only files (or folders) it may "
                    "change. Writers with disjoint files run at the same time; without files "
                    "writers run one after another.")


class DelegateParams(DelegateItem):
    also: list[DelegateItem] = Field(
        default_factory=list, description="More specialists to run in parallel."
    )


class DelegateTool(Tool[DelegateParams]):
    name = "delegate"
    risk = Risk.SPAWN
    description = (
        "Start a specialist agent on a self-contained task and get its structured result (JSON). "
        "It sees nothing of this conversation: put what it needs in `context`. Use `also` to run "
        "more read-only specialists (search, research, review) at the same time (several "
        "delegate calls in one turn run at once too); writers run at once only on disjoint "
        "`files`."
    )

    Params = DelegateParams

    def __init__(self, agents: list[str] | None = None) -> None:
        self.specialists = agents
        """The names offered in the schema's enum (None: any name)."""

    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        if self.specialists:
            props = schema["function"]["parameters"]
            item = props.get("$defs", {}).get("DelegateItem", {}).get("properties", {})
            for target in (props["properties"], item):
                if "agent" in target:
                    target["agent"]["enum"] = list(self.specialists)
        return schema

    async def run(self, params: DelegateParams, ctx: ToolContext) -> ToolResult:
        delegator = ctx.services.delegator
        if delegator is None:
            return ToolResult.error("delegation is not available to this agent")
        items = [params, *params.also]
        requests = [DelegationRequest(i.agent, i.task, i.context, i.timeout_s, tuple(i.files))
                    for i in items]
        return await delegator.delegate(requests, ctx.agent_id)
