"""One conversation: the object every face drives.

Faces call `submit`, `run_command`, `run_shell`, `cancel`, `answer_approval`, `set_mode`,
`set_model`, and render the events they receive from `session.bus`. Nothing here knows which face
is running.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.bus import EventBus
from valarmind_tui.events import ApprovalRequested, ApprovalResolved
from valarmind_tui.safety.approval import (
    ApprovalAnswer,
    ApprovalRequest,
)


@dataclass(frozen=True)
class PromptResult:
    """The outcome of one submitted prompt."""

    status: str
    """done, failed, incomplete or cancelled."""
    text: str


class InteractiveApprover:
    """Publishes ApprovalRequested and waits until a face calls `Session.answer_approval`."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._pending: dict[str, asyncio.Future[ApprovalAnswer]] = {}

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        self._pending[request.request_id] = future
        self._bus.publish(
            ApprovalRequested(
                agent_id=request.agent_id, request_id=request.request_id, tool=request.tool,
                summary=request.summary, reason=request.reason, diff=request.diff,
                command=request.command, cwd=request.cwd, path=request.path,
            )
        )
        try:
            answer = await future
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

    def pending(self) -> list[str]:
        return list(self._pending)

    def cancel_all(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_result(ApprovalAnswer("deny", feedback="cancelled"))


@dataclass
class SessionUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class SessionState:
    history: list[dict[str, Any]] = field(default_factory=list)
    usage: SessionUsage = field(default_factory=SessionUsage)


_ids = itertools.count(1)
