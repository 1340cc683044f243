"""The approver of the interactive faces: an approval becomes an event a face shows, and the
face's answer (`Session.answer_approval`) resolves it.

Agents run at once (parallel delegations), so questions are a queue: one is open at a time, the
next is asked once it is answered, in the order they came; each names the agent that asks
(`ApprovalRequested.agent_id`)."""

from __future__ import annotations

import asyncio

from valarmind_tui.agents.timeout import is_timeout
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import ApprovalRequested, ApprovalResolved
from valarmind_tui.core.visible_text import approval_warning
from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest


class InteractiveApprover:
    """Publishes ApprovalRequested and waits until a face calls `Session.answer_approval`."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._pending: dict[str, asyncio.Future[ApprovalAnswer]] = {}
        self._one_at_a_time = asyncio.Lock()

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask the person once the questions before this one are answered."""
        async with self._one_at_a_time:
            return await self._ask(request)

    async def _ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        self._pending[request.request_id] = future
        self._bus.publish(
            ApprovalRequested(
                agent_id=request.agent_id, request_id=request.request_id, tool=request.tool,
                summary=request.summary, reason=request.reason, diff=request.diff,
                command=request.command, cwd=request.cwd, path=request.path,
                warning=approval_warning(command=request.command, path=request.path,
                                         diff=request.diff),
            )
        )
        try:
            answer = await future
        except asyncio.CancelledError as exc:
            # a time limit or Esc stopped the agent: the request is answered (denied), so the
            # dialog closes
            why = "timeout" if is_timeout(exc) else "cancelled"
            self._bus.publish(ApprovalResolved(
                agent_id=request.agent_id, request_id=request.request_id, decision="deny",
                feedback=why))
            raise
        finally:
            self._pending.pop(request.request_id, None)
        self._bus.publish(
            ApprovalResolved(
                agent_id=request.agent_id, request_id=request.request_id,
                decision=answer.decision, feedback=answer.feedback,
            )
        )
        return answer

    def answer(self, request_id: str, answer: ApprovalAnswer) -> bool:
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(answer)
        return True

    def cancel_all(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_result(ApprovalAnswer("deny", feedback="cancelled"))
