"""Answering a server's `sampling/createMessage` with ValarMind's own model (seed 004).

With tools (SEP-1577) the *server* runs the tools: each request carries the whole conversation so
far; we answer one model turn, and when the model calls tools we return `tool_use` blocks with
stopReason `toolUse`; the server executes them and asks again with `tool_result` blocks. One
request is one iteration of that loop. Here we ask the person (once per conversation), filter the
offered tools by the request's `metadata.allowedToolPatterns`, stop after `maxIterations`, publish
events and keep a trace (`agent_iteration` per answer, `agent_complete` at the end, also published
as TraceRecorded events).

Each answer has a time limit (`mcp.sampling_timeout_s`, 60 s, or the server's own
`sampling_timeout_s`) around the model's turn, not the person's approval. Its tokens and cost
count in the session's usage (`totals`). The request is linked to the agents' tool calls to that
server running when it came (`calls_in_flight`, set by the McpManager): the sampling agent's
parent is the calling agent, and the trace records name the tool call ids.
"""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import (
    AgentFinished,
    AgentSpawned,
    Notice,
    RunStatus,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TraceRecorded,
    UsageUpdated,
)
from valarmind_tui.providers.base import (
    ModelRequest,
    Provider,
    TextPiece,
    ToolCall,
    TurnComplete,
    Usage,
    UsageTotals,
)
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.safety.gate.approval import ApprovalRequest, Approver

if TYPE_CHECKING:
    from mcp_types import (
        CreateMessageRequestParams,
        CreateMessageResult,
        CreateMessageResultWithTools,
        ErrorData,
        Tool,
    )

    Answer = CreateMessageResult | CreateMessageResultWithTools

SAMPLING_TOOL = "mcp_sampling"
"""The `tool` name of sampling approvals (PolicyApprover.allow_sampling answers them)."""
USER_REJECTED = -1
INTERNAL_ERROR = -32603
_ids = itertools.count(1)


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def _text_of(blocks: list[Any]) -> str:
    parts = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} attachment omitted]")
    return "\n".join(parts)


def to_openai_messages(params: CreateMessageRequestParams) -> list[dict[str, Any]]:
    """MCP sampling messages (text, tool_use, tool_result) as OpenAI chat messages."""
    messages: list[dict[str, Any]] = []
    if params.system_prompt:
        messages.append({"role": "system", "content": params.system_prompt})
    for message in params.messages:
        blocks = _blocks(message.content)
        uses = [b for b in blocks if getattr(b, "type", "") == "tool_use"]
        results = [b for b in blocks if getattr(b, "type", "") == "tool_result"]
        for result in results:
            text = _text_of(list(result.content or []))
            if not text and result.structured_content is not None:
                text = json.dumps(result.structured_content)
            messages.append({"role": "tool", "tool_call_id": result.tool_use_id,
                             "content": ("ERROR: " if result.is_error else "") + text})
        text = _text_of(blocks)
        if message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if uses:
                entry["tool_calls"] = [
                    {"id": u.id, "type": "function",
                     "function": {"name": u.name, "arguments": json.dumps(u.input)}}
                    for u in uses
                ]
            messages.append(entry)
        elif text or not results:
            messages.append({"role": "user", "content": text})
    return messages


def to_openai_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {
            "name": t.name, "description": t.description or t.title or t.name,
            "parameters": {"type": "object", "properties": {}, **(t.input_schema or {})},
        }}
        for t in tools
    ]


def _iteration(params: CreateMessageRequestParams) -> int:
    """1-based: assistant tool-use turns already in the conversation, plus this one."""
    return 1 + sum(
        1 for m in params.messages if m.role == "assistant"
        and any(getattr(b, "type", "") == "tool_use" for b in _blocks(m.content))
    )


@dataclass
class _Conversation:
    """One sampling conversation of a server (its requests share the first message)."""

    trace_id: str
    agent_id: str
    server: str
    tool_call_ids: tuple[str, ...]
    """Our agents' tool calls to the server running when the conversation began."""
    parent_id: str | None
    approved: bool | None = None
    started: float = field(default_factory=time.perf_counter)
    open_calls: dict[str, str] = field(default_factory=dict)
    """tool_use id -> tool name, for the tool_use blocks the server has not answered yet."""
    iterations: int = 0


def _answer(with_tools: bool, text: str, model: str, stop_reason: str) -> Answer:
    """A text answer: one block for a plain request, a list of blocks for one with tools."""
    import mcp_types as types

    content = types.TextContent(type="text", text=text)
    if with_tools:
        return types.CreateMessageResultWithTools(role="assistant", content=[content],
                                                  model=model, stop_reason=stop_reason)
    return types.CreateMessageResult(role="assistant", content=content, model=model,
                                     stop_reason=stop_reason)


class SamplingHandler:
    """The `sampling_callback` of our MCP client sessions (see `callback_for`)."""

    def __init__(
        self, provider_factory: Callable[[], Provider], approver: Approver, bus: EventBus, *,
        max_iterations: int = 5, timeout_s: float = 60.0,
        server_timeouts: dict[str, float] | None = None,
    ) -> None:
        self.provider_factory = provider_factory
        self.approver = approver
        self.bus = bus
        self.max_iterations = max_iterations
        self.timeout_s = timeout_s
        self.server_timeouts = dict(server_timeouts or {})
        self.trace: list[dict[str, Any]] = []
        """agent_iteration / agent_complete records, in order."""
        self.totals: UsageTotals | None = None
        """The session's usage; None: not counted."""
        self.calls_in_flight: Callable[[str], dict[str, str]] | None = None
        """server -> {tool call id: agent id} of the calls running now (McpManager sets it)."""
        self._conversations: dict[str, _Conversation] = {}

    def callback_for(self, server: str) -> Callable[..., Any]:
        """The callback to give ClientSession for one server."""

        async def callback(context: Any, params: Any) -> Any:
            return await self.handle(server, params)

        return callback

    def _conversation(self, server: str, params: CreateMessageRequestParams
                      ) -> tuple[str, _Conversation]:
        first = params.messages[0].model_dump_json() if params.messages else ""
        key = hashlib.sha256(f"{server}\0{first}".encode()).hexdigest()[:16]
        if key not in self._conversations:
            callers = self.calls_in_flight(server) if self.calls_in_flight is not None else {}
            self._conversations[key] = _Conversation(
                trace_id=key, agent_id=f"mcp-sampling-{next(_ids)}", server=server,
                tool_call_ids=tuple(callers), parent_id=next(iter(callers.values()), None))
        return key, self._conversations[key]

    async def handle(self, server: str, params: CreateMessageRequestParams
                     ) -> Answer | ErrorData:
        """Answer one sampling request: a result, or ErrorData (refused, failed)."""
        import mcp_types as types

        key, conv = self._conversation(server, params)
        agent_id = conv.agent_id
        if conv.approved is None:
            conv.approved = await self._approve(server, params, agent_id)
            if conv.approved:
                self.bus.publish(AgentSpawned(agent_id=agent_id, parent_id=conv.parent_id,
                                              name=f"mcp-sampling:{server}",
                                              task=_text_of(_blocks(params.messages[0].content))
                                              if params.messages else ""))
        if not conv.approved:
            self._conversations.pop(key, None)
            self.bus.publish(Notice(agent_id=agent_id, level="warning",
                                    message=f"Sampling request from MCP server {server!r} refused"))
            return types.ErrorData(code=USER_REJECTED, message="User rejected sampling request")
        self._finish_tool_calls(conv, params)
        limit = self.server_timeouts.get(server, self.timeout_s)
        try:
            async with asyncio.timeout(limit):
                return await self._iterate(server, params, key, conv)
        except TimeoutError:
            why = f"the model did not answer within {limit:g} s (sampling time limit)"
            self._complete(key, conv, success=False, error=why)
            self.bus.publish(Notice(agent_id=agent_id, level="error",
                                    message=f"Sampling for MCP server {server!r} failed: {why}"))
            return types.ErrorData(code=INTERNAL_ERROR, message=f"sampling failed: {why}")
        except Exception as exc:  # provider failures become an MCP error for the server
            self._complete(key, conv, success=False, error=str(exc))
            self.bus.publish(Notice(agent_id=agent_id, level="error",
                                    message=f"Sampling for MCP server {server!r} failed: {exc}"))
            return types.ErrorData(code=INTERNAL_ERROR, message=f"sampling failed: {exc}")

    async def _approve(self, server: str, params: CreateMessageRequestParams,
                       agent_id: str) -> bool:
        first = _text_of(_blocks(params.messages[-1].content)) if params.messages else ""
        tools = [t.name for t in params.tools or []]
        summary = f"MCP server {server!r} asks the model: {first[:200]}"
        if tools:
            summary += f" (tools: {', '.join(tools[:10])})"
        answer = await self.approver.request(ApprovalRequest(
            request_id=f"sampling-{next(_ids)}", agent_id=agent_id, tool=SAMPLING_TOOL,
            summary=summary, reason="an MCP server asks to use your model (sampling)",
            rule=f"{SAMPLING_TOOL}({server})",
        ))
        return answer.allowed

    def _finish_tool_calls(self, conv: _Conversation, params: CreateMessageRequestParams
                           ) -> None:
        """Tool results the server sends back close the ToolCallStarted we published."""
        open_calls = conv.open_calls
        for message in params.messages:
            for block in _blocks(message.content):
                if getattr(block, "type", "") == "tool_result" and block.tool_use_id in open_calls:
                    name = open_calls.pop(block.tool_use_id)
                    self.bus.publish(ToolCallFinished(
                        agent_id=conv.agent_id, call_id=block.tool_use_id, name=name,
                        status="error" if block.is_error else "ok",
                        output=_text_of(list(block.content or []))[:2000],
                    ))

    def _allowed_tools(self, params: CreateMessageRequestParams) -> list[Tool]:
        meta = params.metadata or {}
        patterns = meta.get("allowedToolPatterns") or meta.get("allowedTools")
        tools = list(params.tools or [])
        if params.tool_choice is not None and params.tool_choice.mode == "none":
            return []
        if patterns:
            tools = [t for t in tools if any(fnmatch.fnmatchcase(t.name, p) for p in patterns)]
        return tools

    def _limit(self, params: CreateMessageRequestParams) -> int:
        asked = (params.metadata or {}).get("maxIterations")
        if isinstance(asked, int | float) and asked >= 1:
            return min(int(asked), self.max_iterations)
        return self.max_iterations

    async def _iterate(self, server: str, params: CreateMessageRequestParams, key: str,
                       conv: _Conversation) -> Answer:
        iteration = _iteration(params)
        with_tools = params.tools is not None or params.tool_choice is not None
        if iteration > self._limit(params):
            text = (f"Stopped: the sampling loop reached its limit of {self._limit(params)} "
                    "iterations.")
            self.bus.publish(Notice(agent_id=conv.agent_id, level="warning", message=text))
            self._complete(key, conv, success=False, error="max iterations")
            return _answer(with_tools, text, "valarmind", "maxTokens")
        started = time.perf_counter()
        tools = self._allowed_tools(params)
        provider = self.provider_factory()
        request = ModelRequest(messages=to_openai_messages(params), tools=to_openai_tools(tools),
                               max_tokens=params.max_tokens)
        turn = None
        with calls_for(kind="sampling", agent=conv.agent_id, mcp_server=server):
            async for chunk in provider.stream(request):
                if isinstance(chunk, TextPiece):
                    self.bus.publish(TextDelta(agent_id=conv.agent_id, text=chunk.text))
                elif isinstance(chunk, TurnComplete):
                    turn = chunk.turn
        if turn is None:
            raise RuntimeError("the model stream ended without a complete turn")
        self._count(conv, turn.usage)
        allowed = {t.name for t in tools}
        calls = [c for c in turn.tool_calls if c.name in allowed]
        conv.iterations = iteration
        self._record(conv, {
            "type": "agent_iteration", "trace_id": key, "server": server, "iteration": iteration,
            "tool_calls": [c.name for c in calls],
            "duration_ms": round((time.perf_counter() - started) * 1000),
            "prompt_tokens": turn.usage.prompt_tokens,
            "completion_tokens": turn.usage.completion_tokens,
        })
        model = provider.model
        if calls and with_tools:
            return self._tool_use_result(conv, turn.text, calls, model)
        self._complete(key, conv, success=True)
        return _answer(with_tools, turn.text, model, "endTurn")

    def _tool_use_result(
        self, conv: _Conversation, text: str, calls: list[ToolCall], model: str
    ) -> CreateMessageResultWithTools:
        import mcp_types as types

        blocks: list[Any] = [types.TextContent(type="text", text=text)] if text else []
        for call in calls:
            blocks.append(types.ToolUseContent(type="tool_use", id=call.id, name=call.name,
                                               input=call.arguments))
            conv.open_calls[call.id] = call.name
            self.bus.publish(ToolCallStarted(agent_id=conv.agent_id, call_id=call.id,
                                             name=call.name, arguments=call.arguments))
        return types.CreateMessageResultWithTools(role="assistant", content=blocks, model=model,
                                                  stop_reason="toolUse")

    def _complete(self, key: str, conv: _Conversation, *, success: bool, error: str = "") -> None:
        self._conversations.pop(key, None)
        record: dict[str, Any] = {
            "type": "agent_complete", "trace_id": key, "total_iterations": conv.iterations,
            "success": success,
            "duration_ms": round((time.perf_counter() - conv.started) * 1000),
        }
        if error:
            record["error"] = error
        self._record(conv, record)
        self.bus.publish(AgentFinished(agent_id=conv.agent_id, name="mcp-sampling",
                                       status=RunStatus.DONE if success else RunStatus.FAILED,
                                       summary=error or "sampling complete"))

    def _record(self, conv: _Conversation, record: dict[str, Any]) -> None:
        record["tool_call_ids"] = list(conv.tool_call_ids)
        self.trace.append(record)
        self.bus.publish(TraceRecorded(agent_id=conv.agent_id, kind=record["type"],
                                       record=record, tool_call_ids=conv.tool_call_ids))

    def _count(self, conv: _Conversation, usage: Usage) -> None:
        """The turn's tokens and cost join the session's usage (the status bar, `-p` JSON)."""
        totals = self.totals
        if totals is not None:
            totals.add(usage)
        self.bus.publish(UsageUpdated(
            agent_id=conv.agent_id, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd,
            session_tokens=totals.tokens if totals is not None else 0,
            session_cost_usd=totals.cost_usd if totals is not None else 0.0,
            session_unpriced=totals.unpriced if totals is not None else 0,
        ))
