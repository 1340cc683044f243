"""/export: the conversation as Markdown or JSONL, secrets masked (an export is shared)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.safety.secrets import project_masker

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


async def export(ctx: CommandContext, args: str) -> CommandResult:
    words = args.split()
    fmt = words.pop(0) if words and words[0] in ("md", "jsonl") else "md"
    name = words[0] if words else f"valarmind-{ctx.session_id or 'session'}.{fmt}"
    path = Path(name).expanduser()
    path = path if path.is_absolute() else ctx.project_root / path
    secrets = project_masker(ctx.project_root)  # an export is shared: no secret in it
    history = secrets.mask_data(ctx.history, cached=True)
    text = (export_markdown(history) if fmt == "md"
            else export_jsonl(history, secrets.mask_data(sampling_traces(ctx))))
    await asyncio.to_thread(path.write_text, text, encoding="utf-8")
    return CommandResult(f"Exported {len(ctx.history)} messages to {path}.",
                         data={"path": str(path)})


COMMANDS = (
    Command("export", "write this conversation to a Markdown or JSONL file",
            usage="[md|jsonl] [FILE]", handler=export, choices=lambda ctx: ["md", "jsonl"]),
)


def sampling_traces(ctx: CommandContext) -> list[dict[str, Any]]:
    """The MCP sampling trace records of the session: from its stored events (a resumed
    session's earlier ones too), else from this process's sampling handler."""
    if ctx.store is not None and ctx.session_id is not None:
        return [e["record"] for e in ctx.store.events(ctx.session_id)
                if e.get("type") == "trace_recorded"]
    sampling = ctx.mcp.sampling
    return list(sampling.trace) if sampling is not None else []


def export_markdown(history: list[dict[str, Any]]) -> str:
    """The conversation as Markdown: prompts, answers and tool calls (no system prompt)."""
    parts: list[str] = []
    for message in history:
        role, content = message.get("role"), message.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if role == "user":
            parts.append(f"## You\n\n{text}")
        elif role == "assistant":
            body = text if content else ""
            for call in message.get("tool_calls") or []:
                fn = call.get("function", {})
                body += f"\n\n`{fn.get('name')}` {fn.get('arguments', '')}"
            parts.append(f"## ValarMind\n\n{body.strip()}")
        elif role == "tool":
            parts.append(f"<details><summary>tool result</summary>\n\n```\n{text}\n```\n"
                         "</details>")
    return "\n\n".join(parts) + "\n"


def export_jsonl(
    history: list[dict[str, Any]], traces: list[dict[str, Any]] | None = None
) -> str:
    """Every message, one JSON object a line (the system prompt included), then the trace
    records of MCP sampling loops (`{"type": "agent_iteration" | "agent_complete", ...}`)."""
    lines = [*history, *(traces or [])]
    return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in lines)
