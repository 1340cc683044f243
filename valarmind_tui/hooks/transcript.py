"""The conversation as Claude Code writes it at `transcript_path`: one JSON object a line.

    {"type": "user", "message": {"role": "user", "content": "fix the test"}, "uuid": ...,
     "parentUuid": null, "sessionId": ..., "cwd": ..., "isSidechain": false}
    {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "..."}, {"type": "tool_use", "id": ..., "name": "Bash",
         "input": {"command": "pytest"}}]}, ...}
    {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": ..., "content": "..."}]}, ...}

A Stop hook written for Claude Code (`jq 'select(.type == "assistant") | .message.content[] |
select(.type == "text") | .text'`) finds the turn's answer. Tool names and arguments are
Claude's (hooks/names.py); system messages are not written. Each line's uuid is derived from
the session and its place, so writing the file again gives the same lines.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from valarmind_tui.hooks.names import hook_tool_name, to_hook_input


def transcript_lines(history: list[dict[str, Any]], session_id: str, cwd: Path) -> list[str]:
    """Our messages (OpenAI's shape) as Claude Code's transcript lines."""
    lines: list[str] = []
    parent: str | None = None
    for index, message in enumerate(history):
        entry = _entry(message, cwd)
        if entry is None:
            continue
        line_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"valarmind:{session_id}:{index}"))
        lines.append(json.dumps({**entry, "uuid": line_id, "parentUuid": parent,
                                 "sessionId": session_id, "cwd": str(cwd),
                                 "isSidechain": False}, default=str))
        parent = line_id
    return lines


def _entry(message: dict[str, Any], cwd: Path) -> dict[str, Any] | None:
    role = message.get("role")
    if role == "user":
        return {"type": "user", "message": {"role": "user", "content": _text(message)}}
    if role == "tool":
        result = {"type": "tool_result", "tool_use_id": message.get("tool_call_id", ""),
                  "content": _text(message)}
        return {"type": "user", "message": {"role": "user", "content": [result]}}
    if role != "assistant":
        return None
    blocks: list[dict[str, Any]] = []
    if text := _text(message):
        blocks.append({"type": "text", "text": text})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        name = str(function.get("name", ""))
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except (TypeError, ValueError):
            arguments = {"raw": function.get("arguments")}
        blocks.append({"type": "tool_use", "id": call.get("id", ""), "name": hook_tool_name(name),
                       "input": to_hook_input(name, arguments if isinstance(arguments, dict)
                                              else {"value": arguments}, cwd)})
    return {"type": "assistant", "message": {"role": "assistant", "content": blocks}}


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # parts: keep their text
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""
