"""The agent loop: build request → stream → normalize → gate and run tool calls → repeat.

One loop serves every agent; agents differ only in their spec (prompt, tools, permissions).
Its tool calls run through `tool_calls.ToolCalls`; their results are appended in the order the
model asked.
Running out of turns is not an error: the outcome is `incomplete` and its text starts with
`## INCOMPLETE`, saying why (seed 000).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.agents.loop_oversight import LoopReviews, with_appeal_tool
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.agents.steering import SteeringQueue
from valarmind_tui.agents.timeout import TIMEOUT, is_timeout
from valarmind_tui.agents.tool_calls import ToolCalls, call_batches
from valarmind_tui.context.history_size import ReportedSize, reported_size
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import (
    BudgetExhausted,
    DenialEscalated,
    ProviderError,
)
from valarmind_tui.core.events import (
    ModelFellBack,
    Notice,
    ReasoningDelta,
    RunStatus,
    TextDelta,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.media.images import ImageAttachment
from valarmind_tui.media.parts import TOOL_IMAGES_HEADER, with_images
from valarmind_tui.providers.base import (
    AssistantTurn,
    FallbackUsed,
    ModelRequest,
    Provider,
    ReasoningPiece,
    RetryNotice,
    StreamFinished,
    TextPiece,
    TurnComplete,
    Usage,
    UsageTotals,
)
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.safety.secrets import project_masker
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.registry import ToolRegistry

CANCELLED_MARK = "\n\n[cancelled by the user]"
TIMEOUT_MARK = "\n\n[stopped: the agent's time limit ran out]"


@dataclass
class LoopDeps:
    """What one agent run needs."""

    provider: Provider
    tools: ToolRegistry
    gate: PermissionGate
    bus: EventBus
    ctx: ToolContext
    totals: UsageTotals = field(default_factory=UsageTotals)
    on_message: Callable[[dict[str, Any]], None] | None = None
    """Called with every message appended to history (the session store persists them)."""
    vision: Callable[[str], Awaitable[bool]] | None = None
    """Whether a model reads images (the session's answer honours `[images] vision`); None:
    LiteLLM's model information."""


Status = RunStatus
"""unverified and rejected come only from the orchestrator's quality gates; timeout from the
orchestrator's own time limit (a specialist's ends `timeout` in its DelegationResult)."""


@dataclass(frozen=True)
class AgentOutcome:
    """How an agent run ended."""

    status: Status
    """escalated: the gate raised DenialEscalated (repeated denials); the text says why."""
    text: str
    messages: list[dict[str, Any]]
    turns: int
    usage: Usage
    error: str | None = None
    reported_size: ReportedSize | None = None
    """The tokens the provider reported for the last request that reported any, and the
    messages they counted (context/history_size.py)."""


class AgentLoop:
    """Runs one agent to completion: run → step → query → act."""

    def __init__(
        self, spec: AgentSpec, deps: LoopDeps, *, agent_id: str = "main",
        model: str | None = None, max_turns: int | None = None, stop_event: str = "Stop",
        steering: SteeringQueue | None = None,
    ) -> None:
        """`steering`: the person's messages typed meanwhile (the main agent's loop only)."""
        self.spec = spec
        self.steering = steering
        self.stop_event = stop_event
        """The hook event run when the agent is about to finish: Stop, or SubagentStop for a
        specialist."""
        self._stop_hook_active = False
        reviewers = deps.gate.reviewers
        self.deps = dataclasses.replace(
            deps, tools=with_appeal_tool(deps.tools, reviewers, deps.gate))
        self._reviews = LoopReviews(reviewers, agent_id, final_stop=stop_event == "Stop")
        self.agent_id = agent_id
        self.model = model or deps.provider.model
        self.max_turns = max_turns or spec.max_turns
        self.messages: list[dict[str, Any]] = []
        self._usage = Usage()
        self._turn = 0
        self._partial = ""
        self.calls = ToolCalls(spec, self.deps, self._reviews, agent_id=agent_id,
                               model=self.model)
        self._last_text = ""
        """The last complete turn's text: what a budget stop keeps as the answer."""
        self._reported_size: ReportedSize | None = None

    async def run(
        self, task: str, *, history: list[dict[str, Any]] | None = None,
        system_prompt: str | None = None, images: Sequence[ImageAttachment] = (),
    ) -> AgentOutcome:
        """Run until the model answers without tool calls, the turns run out, or it is stopped.
        `images` go with the task (the caller checked that the model reads them)."""
        if history:
            self.messages = list(history)
        else:
            self._append({"role": "system", "content": system_prompt or self.spec.system_prompt})
        self._append({"role": "user", "content": with_images(task, list(images))})
        self._reviews.began(task)
        try:
            with calls_for(kind="agent", agent=self.agent_id):
                return await self._loop()
        except asyncio.CancelledError as exc:
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            return self._cancelled(timed_out=is_timeout(exc))
        except DenialEscalated as exc:
            self._answer_open_calls(f"Not run: {exc}")
            return self._outcome(RunStatus.ESCALATED, str(exc), error=str(exc))
        except ProviderError as exc:
            return self._outcome(RunStatus.FAILED, self._partial, error=str(exc))
        except BudgetExhausted as exc:  # raised before a model call: the history is whole
            self._finished("", 0, "budget")  # the turn that started is closed, never made
            self._turn -= 1
            text = f"## BUDGET\n\n{exc}" + (f"\n\n{self._last_text}" if self._last_text else "")
            return self._outcome(RunStatus.BUDGET, text, error=str(exc))

    async def _loop(self) -> AgentOutcome:
        last_text = ""
        while self._turn < self.max_turns:
            self._turn += 1
            turn = await self._query()
            self._append(turn.to_message())
            self._reported_size = (reported_size(turn.usage, self.messages,
                                                 turn.model or self.model)
                                   or self._reported_size)
            last_text = self._last_text = turn.text
            ignored = await self._reviews.ignored_error(turn)
            if ignored is not None:
                self._not_run(turn, ignored)
                continue
            if not turn.tool_calls:
                if self.steering is not None and self.steering.pending:
                    continue  # the person wrote meanwhile: the next request carries it
                reason = await self._stop_hooks()
                if reason is None:
                    note = await self._reviews.intent_note(turn.text)
                    if note is None:
                        return self._outcome(RunStatus.DONE, turn.text)
                    self._append({"role": "user", "content": note})
                    continue
                self._append({"role": "user", "content": (
                    f"A {self.stop_event} hook asked you to continue before finishing:\n{reason}")})
                continue
            for batch in call_batches(turn.tool_calls):
                results = await self.calls.run_together(batch)
                for call, result in zip(batch, results, strict=True):
                    self._append({"role": "tool", "tool_call_id": call.id, "content": result})
            if self.calls.images:
                self._append({"role": "user", "content": with_images(
                    TOOL_IMAGES_HEADER, self.calls.images)})
                self.calls.images = []
        reason = (
            f"## INCOMPLETE\n\nThe agent used all {self.max_turns} turns before finishing; "
            "its last message follows.\n\n"
        )
        return self._outcome(RunStatus.INCOMPLETE, reason + last_text)

    def _not_run(self, turn: AssistantTurn, note: str) -> None:
        """A reviewer's note instead of the turn's tool calls (or after its final text)."""
        for call in turn.tool_calls:
            self.calls.started(call)
            self.calls.finished(call, "denied", ToolResult.error(f"Not run: {note}"))
            self._append({"role": "tool", "tool_call_id": call.id, "content": f"Not run: {note}"})
        if not turn.tool_calls:
            self._append({"role": "user", "content": note})

    async def _stop_hooks(self) -> str | None:
        """Why the agent must go on (a Stop hook's exit 2 or `decision: block`), or None. It goes
        on once: the repeat runs with `stop_hook_active: true`, and a second block is only a
        Notice, so a hook can never keep an agent running forever."""
        hooks = self.deps.gate.hooks
        if hooks is None:
            return None
        reason = await hooks.stop(self.stop_event, self.agent_id, self._stop_hook_active)
        if reason is None:
            return None
        if self._stop_hook_active:
            self.deps.bus.publish(Notice(agent_id=self.agent_id, level="warning", message=(
                f"A {self.stop_event} hook blocked stopping again; the agent already continued "
                f"once for it, so it stops now. The hook said: {reason}")))
            return None
        self._stop_hook_active = True
        return reason

    async def _query(self) -> AssistantTurn:
        bus = self.deps.bus
        if self.steering is not None:
            self.steering.deliver(lambda text: self._append({"role": "user", "content": text}))
        bus.publish(TurnStarted(agent_id=self.agent_id, turn=self._turn, model=self.model))
        request = ModelRequest(
            messages=self.messages, tools=self.deps.tools.schemas(), model=self.model
        )
        self._partial = ""
        skill = self.calls.skill
        with calls_for(**({"skill": skill} if skill else {})):
            return await self._stream(request)

    async def _stream(self, request: ModelRequest) -> AssistantTurn:
        bus = self.deps.bus
        turn: AssistantTurn | None = None
        finished = False
        async for chunk in self.deps.provider.stream(request):
            if isinstance(chunk, TextPiece):
                self._partial += chunk.text
                bus.publish(TextDelta(agent_id=self.agent_id, text=chunk.text))
            elif isinstance(chunk, ReasoningPiece):
                bus.publish(ReasoningDelta(agent_id=self.agent_id, text=chunk.text))
            elif isinstance(chunk, StreamFinished):  # said now: counting it may take a while
                finished = True
                self._finished(self._partial, chunk.tool_calls, chunk.finish_reason)
            elif isinstance(chunk, RetryNotice):
                bus.publish(Notice(agent_id=self.agent_id, level="warning", message=chunk.message))
            elif isinstance(chunk, FallbackUsed):
                bus.publish(ModelFellBack(agent_id=self.agent_id, failed_model=chunk.failed_model,
                                          model=chunk.model, reason=chunk.reason))
            elif isinstance(chunk, TurnComplete):
                turn = chunk.turn
        if turn is None:
            raise ProviderError("the model's stream ended without a complete response")
        if not finished:
            self._finished(turn.text, len(turn.tool_calls), turn.finish_reason)
        self._record_usage(turn.usage)
        return turn

    def _finished(self, text: str, tool_calls: int, finish_reason: str | None) -> None:
        self.deps.bus.publish(TurnFinished(agent_id=self.agent_id, turn=self._turn, text=text,
                                           tool_calls=tool_calls, finish_reason=finish_reason))

    def _record_usage(self, usage: Usage) -> None:
        totals = self.deps.totals
        totals.add(usage)
        self._usage = Usage(
            self._usage.prompt_tokens + usage.prompt_tokens,
            self._usage.completion_tokens + usage.completion_tokens,
            (self._usage.cost_usd or 0.0) + (usage.cost_usd or 0.0)
            if usage.cost_usd is not None or self._usage.cost_usd is not None else None,
        )
        self.deps.bus.publish(UsageUpdated(
            agent_id=self.agent_id, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd,
            session_tokens=totals.tokens, session_cost_usd=totals.cost_usd,
            session_unpriced=totals.unpriced))

    async def sees_images(self) -> bool:
        """Whether this agent's model reads images (asked once, off the loop)."""
        return await self.calls.sees_images()

    def _append(self, message: dict[str, Any]) -> None:
        if message.get("role") == "user":  # a prompt may paste a token or attach a .env
            message = project_masker(self.deps.ctx.project_root).mask_data(message, fresh=True)
        self.messages.append(message)
        if self.deps.on_message is not None:
            self.deps.on_message(message)

    def _answer_open_calls(self, content: str) -> bool:
        """Give every unanswered tool call of the last turn a result (or the next request is
        rejected); False when the last message was not a turn with tool calls."""
        last = self.messages[-1] if self.messages else {}
        if not (last.get("role") == "tool" or last.get("role") == "assistant"
                and last.get("tool_calls")):
            return False
        turn: dict[str, Any] = next(
            (m for m in reversed(self.messages) if m.get("role") == "assistant"), {})
        answered = {m.get("tool_call_id") for m in self.messages if m.get("role") == "tool"}
        for tc in turn.get("tool_calls") or []:
            if tc["id"] not in answered:
                self._append({"role": "tool", "tool_call_id": tc["id"], "content": content})
        return last.get("role") == "assistant"

    def _cancelled(self, *, timed_out: bool = False) -> AgentOutcome:
        mark = TIMEOUT_MARK if timed_out else CANCELLED_MARK
        if not self._answer_open_calls(TIMEOUT if timed_out else "cancelled") and self._partial:
            self._append({"role": "assistant", "content": self._partial + mark})
        return self._outcome(RunStatus.CANCELLED, self._partial + mark if self._partial else "")

    def _outcome(
        self, status: Status, text: str,
        error: str | None = None,
    ) -> AgentOutcome:
        return AgentOutcome(
            status=status, text=text, messages=self.messages, turns=self._turn,
            usage=self._usage, error=error, reported_size=self._reported_size,
        )
