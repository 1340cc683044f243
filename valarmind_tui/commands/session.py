"""Slash commands that take work back or out: /undo, /redo, /rewind, /export (/resume and
/rewind --prompt are in rewind.py)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult, PickRewind
from valarmind_tui.commands.rewind import (
    PICK_A_PROMPT,
    REWIND_USAGE,
    rewind_help,
    rewind_to_prompt,
)
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.safety.secrets import project_masker

if TYPE_CHECKING:
    from valarmind_tui.checkpoints import Restored
    from valarmind_tui.commands.api import CommandContext


async def undo(ctx: CommandContext, args: str) -> CommandResult:
    return await _restore(ctx.checkpoints.undo(**_flags(args)))


async def redo(ctx: CommandContext, args: str) -> CommandResult:
    return await _restore(ctx.checkpoints.redo(**_flags(args)))


async def rewind(ctx: CommandContext, args: str) -> CommandResult:
    words = args.split()
    if "--prompt" in words:
        return await rewind_to_prompt(ctx, words)
    numbers = [w for w in words if w.isdigit()]
    unknown = [w for w in words if not w.isdigit() and w not in ("--preview", "--force")]
    if unknown:
        return CommandResult(f"/rewind does not know {unknown[0]!r}. Usage: "
                             f"{REWIND_USAGE}\n{PICK_A_PROMPT}", ok=False)
    if not numbers:
        listed = await list_turns(ctx)
        return CommandResult(listed.text, data=listed.data, action=PickRewind())
    return await _restore(ctx.checkpoints.rewind(int(numbers[0]), **_flags(args)))


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
    Command("undo", "take back the files the last turn changed (edits and commands)",
            usage="[--preview] [--force]", idle_only=True, handler=undo),
    Command("redo", "put back what /undo took back", usage="[--preview] [--force]",
            idle_only=True, handler=redo),
    Command("rewind", "pick a message to go back to (files, conversation or both), or restore "
            "the files to before turn N",
            usage=REWIND_USAGE.removeprefix("/rewind "), idle_only=True, handler=rewind),
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


def _flags(args: str) -> dict[str, bool]:
    words = args.split()
    return {"force": "--force" in words, "preview": "--preview" in words}


async def _restore(work: Any) -> CommandResult:
    try:
        restored: Restored = await work
    except ValarMindError as exc:  # nothing to undo, or the checkpoints could not be read
        return CommandResult(str(exc), ok=False)
    report = restored.report
    return CommandResult(restored.describe(), ok=not report.conflicts, data=restored)


async def list_turns(ctx: CommandContext) -> CommandResult:
    try:
        turns = await asyncio.to_thread(ctx.checkpoints.turns)
    except ValarMindError as exc:
        return CommandResult(str(exc), ok=False)
    if not turns:
        return CommandResult("No checkpoints yet: no turn of this session changed files.\n"
                             + rewind_help(ctx))
    rows = []
    for turn in turns:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(turn.at))
        state = f" ({turn.state})" if turn.state else ""
        prompt = turn.prompt.splitlines()[0][:70] if turn.prompt else ""
        rows.append(f"{turn.number:>3}  {when}  {prompt}{state}")
    return CommandResult("Turns that changed files (`/rewind N` restores the files to before "
                         "turn N):\n" + "\n".join(rows) + "\n" + rewind_help(ctx), data=turns)


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
