"""Who thinks for a server tool call: the client's model (sampling) or ours (own-model).

Both speak MCP sampling messages, so agent_delegate's tool loop (SEP-1577: the server runs the
tools the model asks for and sends the results back) is the same code for both.
"""

from __future__ import annotations

import fnmatch
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from valarmind_tui.config import Settings
from valarmind_tui.mcp.server_data import LOCAL_TOOLS, run_local_tool

MAX_TOKENS = 4096
DEFAULT_ITERATIONS = 5


class Thinker:
    """One model turn over MCP sampling messages."""

    mode = "?"

    async def turn(self, system: str, messages: list[Any], tools: list[Any] | None) -> Any:
        """A CreateMessageResult(WithTools)-like object: `.content`, `.model`, `.stop_reason`."""
        raise NotImplementedError

    async def answer(self, system: str, prompt: str) -> tuple[str, str | None]:
        import mcp_types as types

        message = types.SamplingMessage(role="user",
                                        content=types.TextContent(type="text", text=prompt))
        result = await self.turn(system, [message], None)
        return _text(result.content), result.model


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def _text(content: Any) -> str:
    return "\n".join(b.text for b in _blocks(content) if getattr(b, "type", "") == "text")


class SamplingThinker(Thinker):
    """The client's model, through sampling/createMessage on this request's channel."""

    mode = "sampling"

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        caps = ctx.session.client_capabilities
        self.supports_tools = bool(caps and caps.sampling and caps.sampling.tools is not None)

    async def turn(self, system: str, messages: list[Any], tools: list[Any] | None) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sampling is deprecated in 2026-07-28, not in ours
            return await self.ctx.session.create_message(
                messages, max_tokens=MAX_TOKENS, system_prompt=system,
                tools=tools if tools and self.supports_tools else None,
                related_request_id=self.ctx.request_id,
            )


class OwnThinker(Thinker):
    """ValarMind's configured model (LiteLLM provider)."""

    mode = "own-model"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.supports_tools = True
        self._provider: Any = None

    async def turn(self, system: str, messages: list[Any], tools: list[Any] | None) -> Any:
        import mcp_types as types

        from valarmind_tui.mcp.sampling import to_openai_messages, to_openai_tools
        from valarmind_tui.providers.base import ModelRequest, TurnComplete

        if self._provider is None:
            from valarmind_tui.providers.litellm_provider import provider_from_settings

            self._provider = provider_from_settings(self.settings)
        params = types.CreateMessageRequestParams(messages=messages, system_prompt=system,
                                                  max_tokens=MAX_TOKENS, tools=tools)
        request = ModelRequest(messages=to_openai_messages(params),
                               tools=to_openai_tools(tools or []), max_tokens=MAX_TOKENS)
        turn = None
        async for chunk in self._provider.stream(request):
            if isinstance(chunk, TurnComplete):
                turn = chunk.turn
        if turn is None:
            raise RuntimeError("the model stream ended without a complete turn")
        blocks: list[Any] = [types.TextContent(type="text", text=turn.text)] if turn.text else []
        blocks += [types.ToolUseContent(type="tool_use", id=c.id, name=c.name, input=c.arguments)
                   for c in turn.tool_calls]
        return types.CreateMessageResultWithTools(
            role="assistant", content=blocks or [types.TextContent(type="text", text="")],
            model=self._provider.model, stop_reason="toolUse" if turn.tool_calls else "endTurn",
        )


def choose_thinker(ctx: Any, settings: Settings) -> Thinker | None:
    """Sampling when the client declared it, else our model when one is configured, else None."""
    caps = ctx.session.client_capabilities
    if caps is not None and caps.sampling is not None and ctx.session.can_send_request:
        return SamplingThinker(ctx)
    if settings.resolve_model():
        return OwnThinker(settings)
    return None


async def delegate_loop(
    thinker: Thinker, root: Path, tool: Any, args: dict[str, Any],
    progress: Callable[[str], Awaitable[None]],
) -> tuple[str, str | None]:
    """agent_delegate: model turns with read-only project tools, at most maxIterations."""
    import mcp_types as types

    patterns = args.get("allowedTools") or ["*"]
    tools = [
        types.Tool(name=name, description=spec["description"], input_schema=spec["schema"])
        for name, spec in LOCAL_TOOLS.items()
        if any(fnmatch.fnmatchcase(name, p) for p in patterns)
    ] if getattr(thinker, "supports_tools", False) else []
    limit = int(args.get("maxIterations") or DEFAULT_ITERATIONS)
    messages = [types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text=tool.prompt(args, None)))]
    model = None
    for iteration in range(1, limit + 1):
        await progress(f"iteration {iteration}")
        result = await thinker.turn(tool.system, messages, tools or None)
        model = result.model
        uses = [b for b in _blocks(result.content) if getattr(b, "type", "") == "tool_use"]
        if not uses:
            return _text(result.content), model
        messages.append(types.SamplingMessage(role="assistant", content=_blocks(result.content)))
        outputs = []
        for use in uses:
            output, is_error = run_local_tool(root, use.name, use.input) \
                if use.name in {t.name for t in tools} else (f"tool {use.name} not allowed", True)
            outputs.append(types.ToolResultContent(
                type="tool_result", tool_use_id=use.id, is_error=is_error,
                content=[types.TextContent(type="text", text=output)]))
        messages.append(types.SamplingMessage(role="user", content=outputs))
    return f"## INCOMPLETE\n\nStopped after {limit} iterations.", model
