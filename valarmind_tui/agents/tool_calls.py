"""An agent's tool calls: each one gated and run, its events published, and what the model
reads back (capped, images sent after the results for a model that reads them).

A turn's calls run in order, but consecutive `delegate` calls run at once (`call_batches`): the
delegator decides which specialists may overlap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.agents.loop_oversight import LoopReviews
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.agents.timeout import is_timeout
from valarmind_tui.core.errors import DenialEscalated, ToolError
from valarmind_tui.core.events import ToolCallFinished, ToolCallStarted
from valarmind_tui.media.images import ImageAttachment
from valarmind_tui.media.parts import image_line
from valarmind_tui.providers.base import ToolCall
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.providers.model_info import supports_vision
from valarmind_tui.tools.base import CURRENT_CALL_ID, ToolResult
from valarmind_tui.tools.common import cap_middle

if TYPE_CHECKING:
    from valarmind_tui.agents.loop import LoopDeps

MAX_TOOL_OUTPUT_CHARS = 30_000
SKILL_TOOL = "skill"
PARALLEL_TOOLS = frozenset({"delegate"})
"""Tools whose consecutive calls in one turn run at once."""


class ToolCalls:
    """One agent run's tool calls, and what they leave for its next request: the images they
    returned (`images`) and the skill the model loaded (`skill`)."""

    def __init__(self, spec: AgentSpec, deps: LoopDeps, reviews: LoopReviews, *,
                 agent_id: str, model: str) -> None:
        self.spec = spec
        self.deps = deps
        self.reviews = reviews
        self.agent_id = agent_id
        self.model = model
        self.images: list[ImageAttachment] = []
        """Images the running turn's tool calls returned, sent after their results."""
        self.skill: str | None = None
        """The skill the model loaded (the `skill` tool): the ledger names it on later calls."""
        self._vision: bool | None = None

    async def run_together(self, calls: list[ToolCall]) -> list[str]:
        """Run the calls at once (one call: as is); the first exception (a denial escalated,
        a cancel) ends the others and is raised."""
        if len(calls) == 1:
            return [await self.run(calls[0])]
        tasks = [asyncio.ensure_future(self.run(call)) for call in calls]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        except asyncio.CancelledError as exc:
            await _end_all(tasks, exc.args[0] if exc.args else None)
            raise
        failed = next((t for t in tasks if t.done() and not t.cancelled()
                       and t.exception() is not None), None)
        error = failed.exception() if failed is not None else None
        if error is not None:
            await _end_all(tasks, None)
            raise error
        return [task.result() for task in tasks]

    async def run(self, call: ToolCall) -> str:
        """Gate and run one tool call; always returns what the model should read."""
        self.started(call)
        status, result = "error", None
        call_token = CURRENT_CALL_ID.set(call.id)
        try:
            with calls_for(tool_call=call.id, tool=call.name):
                status, result, ran = await self._execute(call)
        except asyncio.CancelledError as exc:
            if is_timeout(exc):
                self.finished(call, "timeout", ToolResult.error(
                    "stopped: the agent's time limit ran out"))
            else:
                self.finished(call, "cancelled", ToolResult.error("cancelled by the user"))
            raise
        except DenialEscalated as exc:
            self.finished(call, "denied", ToolResult.error(str(exc)))
            raise
        finally:
            CURRENT_CALL_ID.reset(call_token)
        self.finished(call, status, result, ran=ran and status != "denied")
        if call.name == SKILL_TOOL and status == "ok" and not call.arguments.get("file"):
            self.skill = str(call.arguments.get("name"))  # its later calls follow the skill
        output = cap_middle(result.output, MAX_TOOL_OUTPUT_CHARS)
        if result.images:
            output += await self._images_for_model(result.images)
        return output

    def started(self, call: ToolCall) -> None:
        self.deps.bus.publish(ToolCallStarted(agent_id=self.agent_id, call_id=call.id,
                                              name=call.name, arguments=call.arguments))

    def finished(self, call: ToolCall, status: Any, result: ToolResult, *,
                 ran: bool = False) -> None:
        self.reviews.tool_finished(call.name, status, result.output)
        self.deps.bus.publish(
            ToolCallFinished(
                agent_id=self.agent_id, call_id=call.id, name=call.name, status=status,
                output=cap_middle(result.output, MAX_TOOL_OUTPUT_CHARS), diff=result.diff,
                exit_code=_exit_code(result), ran=ran,
            )
        )

    async def sees_images(self) -> bool:
        """Whether this agent's model reads images (asked once, off the loop)."""
        if self._vision is None:
            ask = self.deps.vision
            self._vision = (await ask(self.model) if ask is not None
                            else await asyncio.to_thread(supports_vision, self.model))
        return self._vision

    async def _images_for_model(self, images: Sequence[ImageAttachment]) -> str:
        """What the tool result adds for its images: they follow the results for a model that
        reads images; any other is told, one line each."""
        if await self.sees_images():
            self.images.extend(images)
            return "".join(f"\n[{image_line(i)}: shown below]" for i in images)
        return "".join(f"\n[{image_line(i)}: not shown, {self.model} does not read images]"
                       for i in images)

    async def _execute(self, call: ToolCall) -> tuple[str, ToolResult, bool]:
        """(status, result, whether the call got as far as the gate and the tool)."""
        if call.parse_error is not None:
            return "error", ToolResult.error(
                f"The arguments of {call.name} were not valid JSON ({call.parse_error}). "
                f"Received: {call.raw_arguments[:500]!r}. Send the call again with valid JSON."
            ), False
        tool = self.deps.tools.get(call.name)
        if tool is None:
            known = ", ".join(self.deps.tools.names()) or "none"
            return ("error", ToolResult.error(f"Unknown tool {call.name!r}. Available: {known}."),
                    False)
        try:
            params = tool.parse(call.arguments)
        except ToolError as exc:
            return "error", ToolResult.error(str(exc)), False
        status, result = await run_gated(tool, params, self.deps.ctx, self.deps.gate,
                                         self.spec.permissions)
        return status, result, True


def call_batches(calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
    """The turn's calls in order, consecutive `delegate` calls grouped to run together."""
    batches: list[list[ToolCall]] = []
    for call in calls:
        if batches and call.name in PARALLEL_TOOLS and batches[-1][-1].name in PARALLEL_TOOLS:
            batches[-1].append(call)
        else:
            batches.append([call])
    return batches


async def _end_all(tasks: Sequence[asyncio.Future[str]], message: object) -> None:
    """Cancel what still runs (with the cancel's message: a time limit stays "timeout") and
    wait for each to finish answering its call."""
    for task in tasks:
        if not task.done():
            task.cancel(message)
    await asyncio.gather(*tasks, return_exceptions=True)


def _exit_code(result: ToolResult) -> int | None:
    data = result.data
    code = data.get("exit_code") if isinstance(data, dict) else None
    return code if isinstance(code, int) else None
