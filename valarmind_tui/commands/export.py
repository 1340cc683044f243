"""/export: the conversation as Markdown or JSONL, secrets masked (an export is shared); its
images are written beside it (`NAME-images/<sha256>.png`) and the transcript links them."""

from __future__ import annotations

import asyncio
import hashlib
import json
import mimetypes
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.media.parts import decode_data_url, image_url, replace_images
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
    folder = path.with_name(f"{path.stem}-images")
    history, written = await asyncio.to_thread(images_beside, history, folder)
    text = (export_markdown(history) if fmt == "md"
            else export_jsonl(history, secrets.mask_data(sampling_traces(ctx))))
    await asyncio.to_thread(path.write_text, text, encoding="utf-8")
    also = f" and {written} image(s) to {folder}" if written else ""
    return CommandResult(f"Exported {len(ctx.history)} messages to {path}{also}.",
                         data={"path": str(path)})


def images_beside(history: list[dict[str, Any]], folder: Path
                  ) -> tuple[list[dict[str, Any]], int]:
    """The history with each image's data URL replaced by the file it was written to (in
    `folder`, named by hash, relative to the transcript), and how many files were written."""
    written: set[str] = set()

    def swap(url: str) -> str:
        decoded = decode_data_url(url)
        if decoded is None:
            return url
        mime, data = decoded
        name = hashlib.sha256(data).hexdigest()[:16] + (mimetypes.guess_extension(mime) or "")
        if name not in written:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
            written.add(name)
        return f"{folder.name}/{name}"

    return [replace_images(message, swap) for message in history], len(written)


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
        text = content if isinstance(content, str) else _parts_markdown(content)
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


def _parts_markdown(content: Any) -> str:
    if not isinstance(content, list):
        return json.dumps(content)
    return "\n\n".join(f"![image]({url})" if (url := image_url(part)) is not None
                       else str(part.get("text", "")) for part in content
                       if isinstance(part, dict))


def export_jsonl(
    history: list[dict[str, Any]], traces: list[dict[str, Any]] | None = None
) -> str:
    """Every message, one JSON object a line (the system prompt included), then the trace
    records of MCP sampling loops (`{"type": "agent_iteration" | "agent_complete", ...}`)."""
    lines = [*history, *(traces or [])]
    return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in lines)
