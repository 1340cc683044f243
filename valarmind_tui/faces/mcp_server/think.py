"""Who thinks for a server tool call, and the agents that do it.

The client's model (sampling/createMessage) is wrapped as a `Provider`, so every mode that
thinks runs the same code: the project's real agent loop (`Delegator` → `AgentLoop`) with the
specialist's spec, read-only tools and a plan-mode gate. Its events go to a per-call bus that
`forward_progress` turns into MCP progress notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, assert_never

from valarmind_tui.agents.delegation.delegate import Delegator
from valarmind_tui.agents.goal.state import progress_line
from valarmind_tui.agents.loop import LoopDeps
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ProviderError
from valarmind_tui.core.events import (
    AgentFinished,
    AgentSpawned,
    ApprovalRequested,
    ApprovalResolved,
    CheckpointCreated,
    CommitMessageRequested,
    CommitStepFinished,
    Event,
    FilesRestored,
    GoalUpdated,
    HookRan,
    JobChanged,
    ModeChanged,
    ModelFellBack,
    Notice,
    PromptFinished,
    ReasoningDelta,
    ReviewerRan,
    SteeringChanged,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TraceRecorded,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.mcp_server.params import Params
from valarmind_tui.oversight import Reviewers
from valarmind_tui.providers.base import (
    AssistantTurn,
    ModelRequest,
    Provider,
    StreamChunk,
    TextPiece,
    ToolCall,
    TurnComplete,
)
from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.session.wiring import build_gate
from valarmind_tui.settings.config import Settings
from valarmind_tui.tools.base import Risk, ToolContext
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from mcp_types import SamplingMessage, Tool, ToolResultContent

DEFAULT_MAX_TOKENS = 4096
Progress = Callable[[str], Awaitable[None]]


P = TypeVar("P", bound=Params)


@dataclass
class Call(Generic[P]):
    """One tool call to the server: its arguments and who thinks (no provider: raw mode).
    `Call[SearchParams]` is a call of the search tool (its steps read its arguments)."""

    root: Path
    args: P
    """The validated arguments (params.py)."""
    settings: Settings
    provider: Provider | None
    bus: EventBus
    explicit_mode: str | None = None
    """The --permission-mode the server was started with."""
    tools_used: list[str] = field(default_factory=list)
    """Tools that ran (an error or a time limit included)."""
    tools_refused: list[str] = field(default_factory=list)
    """Tools the agent asked for that never ran (refused, not offered, invalid arguments)."""
    gathered: dict[str, Any] = field(default_factory=dict)
    """The raw data gathered so far: what a fallback or a timeout returns."""
    scratch: dict[str, Any] = field(default_factory=dict)
    """Objects a tool's gather step hands to its think step (e.g. the review report)."""
    reviewers: Reviewers | None = None
    """The person's model reviewers for this call's gates (reviews.call_reviewers)."""

    @property
    def sandbox(self) -> Sandbox:
        """Where this call's commands run (detection is cached per process)."""
        return Sandbox.detect(self.settings.sandbox, self.settings.sandbox_network,
                              home_allow=self.settings.sandbox_home)

    def delegator(self, *extra_specs: AgentSpec) -> Delegator:
        assert self.provider is not None, "raw mode runs no agent"
        return server_delegator(self.root, self.settings, self.provider, self.bus, extra_specs,
                                sandbox=self.sandbox, reviewers=self.reviewers)


@dataclass
class Answer:
    """What a tool call returns: the text for the client and its structured data."""

    text: str
    data: Any = None
    summary: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    """More top-level fields of structuredContent (e.g. `written`)."""


class ThinkFailed(Exception):
    """The model (ours or the client's) did not produce an answer; the raw data stands in."""


class SamplingProvider:
    """The client's model as a Provider: one `sampling/createMessage` per model turn.

    With a client that declared sampling tools (SEP-1577) the agent's tools are offered and the
    loop runs the `tool_use` blocks it gets back; otherwise the model answers without tools."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        caps = ctx.session.client_capabilities
        self.supports_tools = bool(caps and caps.sampling and caps.sampling.tools is not None)
        self._model = "client"

    @property
    def model(self) -> str:
        """"client" until the first answer names the client's model."""
        return self._model

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        system, messages = to_sampling_messages(request.messages)
        tools = to_mcp_tools(request.tools) if self.supports_tools else None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # sampling is deprecated in 2026-07-28, not ours
                result = await self.ctx.session.create_message(
                    messages, max_tokens=request.max_tokens or DEFAULT_MAX_TOKENS,
                    system_prompt=system, tools=tools or None,
                    related_request_id=self.ctx.request_id,
                )
        except Exception as exc:  # the client refused or failed: the loop reports it
            raise ProviderError(f"the client's model did not answer: {exc}") from exc
        self._model = result.model or self._model
        blocks = _blocks(result.content)
        text = "\n".join(b.text for b in blocks if getattr(b, "type", "") == "text")
        calls = tuple(
            ToolCall(id=b.id, name=b.name, arguments=dict(b.input or {}),
                     raw_arguments=json.dumps(b.input or {}))
            for b in blocks if getattr(b, "type", "") == "tool_use"
        )
        if text:
            yield TextPiece(text)
        yield TurnComplete(AssistantTurn(text=text, tool_calls=calls,
                                         finish_reason=result.stop_reason))


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def to_sampling_messages(messages: list[dict[str, Any]]
                         ) -> tuple[str | None, list[SamplingMessage]]:
    """OpenAI chat messages (the loop's history) as (system prompt, MCP sampling messages);
    consecutive tool results become one user message of `tool_result` blocks."""
    import mcp_types as types

    system: list[str] = []
    out: list[SamplingMessage] = []
    results: list[ToolResultContent] = []

    def flush() -> None:
        if results:
            out.append(types.SamplingMessage(role="user", content=list(results)))
            results.clear()

    for message in messages:
        role, content = message.get("role"), _content_text(message.get("content"))
        if role == "system":
            system.append(content)
        elif role == "tool":
            results.append(types.ToolResultContent(
                type="tool_result", tool_use_id=message["tool_call_id"],
                content=[types.TextContent(type="text", text=content)]))
        else:
            flush()
            blocks: list[Any] = [types.TextContent(type="text", text=content)] if content else []
            for call in message.get("tool_calls") or []:
                function = call["function"]
                blocks.append(types.ToolUseContent(
                    type="tool_use", id=call["id"], name=function["name"],
                    input=_arguments(function.get("arguments"))))
            if not blocks:
                blocks = [types.TextContent(type="text", text="")]
            speaker: Literal["user", "assistant"] = "assistant" if role == "assistant" else "user"
            out.append(types.SamplingMessage(role=speaker,
                                             content=blocks if len(blocks) > 1 else blocks[0]))
    flush()
    return "\n\n".join(system) or None, out


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # multimodal parts: the text ones
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def to_mcp_tools(schemas: list[dict[str, Any]]) -> list[Tool]:
    """OpenAI function-tool schemas as MCP tools (what sampling requests carry)."""
    import mcp_types as types

    return [types.Tool(name=s["function"]["name"], description=s["function"].get("description"),
                       input_schema=s["function"].get("parameters") or {"type": "object"})
            for s in schemas]


def choose_provider(ctx: Any, settings: Settings) -> tuple[Provider | None, str, str | None]:
    """(provider, mode, why not own model): the client's model when it declared sampling, else
    ours when a model AND its key resolve, else (None, "raw", why).

    "Key resolves" is decided offline by provider_from_settings, as for every other face: the
    key's environment variable (`api_key_env`, or the provider's own such as OPENAI_API_KEY)
    must be set, except for a local endpoint; no request is made to find out."""
    caps = ctx.session.client_capabilities
    if caps is not None and caps.sampling is not None and ctx.session.can_send_request:
        return SamplingProvider(ctx), "sampling", None
    if not settings.resolve_model():
        return None, "raw", None
    from valarmind_tui.providers.litellm_provider import provider_from_settings

    try:
        return provider_from_settings(settings), "own-model", None
    except ProviderError as exc:  # AuthError included: configured, but not usable here
        return None, "raw", f"own model not usable: {exc}"


def read_only_tools(sandbox: Sandbox | None = None) -> ToolRegistry:
    """The built-in tools that only read (what the server's agents may use), less the
    companions of a tool they do not get (command_output and command_stop go with bash)."""
    return ToolRegistry(t for t in builtin_tools(sandbox=sandbox)
                        if t.risk is Risk.READ and not t.companion_of)


def server_delegator(
    root: Path, settings: Settings, provider: Provider, bus: EventBus,
    extra_specs: Iterable[AgentSpec] = (), *, sandbox: Sandbox | None = None,
    reviewers: Reviewers | None = None,
) -> Delegator:
    """Specialists for one call: the project's agent registry (plus the agent_* tools' specs),
    read-only tools and a plan-mode gate whose policy refuses anything else (the person's
    reviewers may deny in it, never approve)."""
    registry = AgentRegistry.load(root, settings)
    for spec in extra_specs:
        registry.add(spec)
    gate = build_gate(settings, root, PolicyApprover(), bus, mode=PermissionMode.PLAN,
                      sandbox=sandbox, reviewers=reviewers)
    deps = LoopDeps(provider=provider, tools=read_only_tools(sandbox), gate=gate, bus=bus,
                    ctx=ToolContext(project_root=root, agent_id="mcp", sandbox=sandbox))
    return Delegator(registry, deps, settings=settings)


def describe(event: Event) -> str | None:
    """The progress message for an agent event (None: not worth a notification)."""
    match event:
        case AgentSpawned():
            return f"{event.name} agent started"
        case TurnStarted():
            return f"{event.agent_id}: turn {event.turn}"
        case ToolCallStarted():
            args = json.dumps(event.arguments, ensure_ascii=False)
            return f"{event.agent_id}: {event.name} {args[:120]}"
        case ToolCallFinished() if event.status != "ok":
            return f"{event.agent_id}: {event.name} {event.status}"
        case AgentFinished():
            return f"{event.name} agent {event.status}"
        case Notice():
            return event.message
        case ModelFellBack():
            return f"{event.failed_model} failed, {event.model} answers: {event.reason}"
        case GoalUpdated():
            return progress_line(event)
        case ReviewerRan():
            said = f": {event.reason}" if event.reason and event.verdict != "none" else ""
            return f"{event.reviewer} reviewer: {event.verdict}{said}"
        case (ToolCallFinished() | TextDelta() | ReasoningDelta() | TurnFinished()
              | ApprovalRequested() | ApprovalResolved() | TaskListChanged() | UsageUpdated()
              | ModeChanged() | PromptFinished() | HookRan() | CheckpointCreated()
              | FilesRestored() | CommitStepFinished() | CommitMessageRequested()
              | TraceRecorded() | JobChanged() | SteeringChanged()):
            return None
        case _:
            assert_never(event)


@contextlib.asynccontextmanager
async def forward_progress(bus: EventBus, progress: Progress, call: Call) -> AsyncIterator[None]:
    """While the block runs, agent events on `bus` become progress notifications; the tools
    that ran are collected in `call.tools_used`, those asked for that never ran (refused by
    the gate, not offered to the agent, invalid arguments) in `call.tools_refused`."""
    subscription = bus.subscribe()

    async def pump() -> None:
        async for event in subscription:
            match event:
                case ToolCallFinished(ran=True):
                    call.tools_used.append(event.name)
                case ToolCallFinished(status="denied" | "error"):
                    call.tools_refused.append(event.name)
                case _:
                    pass  # every event still becomes a progress message below
            message = describe(event)
            if message:
                await progress(message)

    task = asyncio.ensure_future(pump())
    try:
        yield
    finally:
        subscription.close()  # the pump drains what is queued, then ends
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(task, 5)
