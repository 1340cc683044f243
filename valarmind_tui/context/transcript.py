"""A stored conversation as the faces show it again on resume.

`build_transcript` turns history messages (OpenAI format, as the session store keeps them) and
the session's event log into display items: what the person asked, the answers, each tool call
with its outcome, compaction summaries. Tool messages carry only the text the model read; the
outcome (ok, error, denied, cancelled) and any diff come from the logged ToolCallFinished events.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from valarmind_tui.context.attachments import split_attachments
from valarmind_tui.context.compaction import SUMMARY_HEADER

SHOWN_MESSAGES = 50
"""A resumed conversation shows at most this many of its last messages."""


@dataclass(frozen=True)
class UserItem:
    text: str
    attachments: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnswerItem:
    text: str


@dataclass(frozen=True)
class ToolItem:
    call_id: str
    name: str
    arguments: dict[str, Any]
    status: str
    """As in ToolCallFinished: ok, error, denied or cancelled."""
    output: str = ""
    diff: str | None = None


@dataclass(frozen=True)
class SummaryItem:
    """A compaction summary standing for the turns it replaced."""

    text: str


TranscriptItem = UserItem | AnswerItem | ToolItem | SummaryItem


@dataclass(frozen=True)
class Transcript:
    items: tuple[TranscriptItem, ...]
    total: int
    """Messages in the conversation (system prompts not counted)."""
    hidden: int
    """Earlier messages left out of `items`."""


def build_transcript(
    messages: list[dict[str, Any]], events: Iterable[dict[str, Any]] = (),
    limit: int = SHOWN_MESSAGES,
) -> Transcript:
    """The last `limit` messages as display items, in order; a cut never separates a tool
    result from its call."""
    outcomes = _main_tool_outcomes(events)
    start = _cut(messages, limit)
    placed: list[tuple[int, TranscriptItem]] = []
    calls: dict[str, int] = {}
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            placed.append((index, _user_item(_text(message.get("content")))))
        elif role == "assistant":
            text = _text(message.get("content")).strip()
            if text:
                placed.append((index, AnswerItem(text)))
            for call in message.get("tool_calls") or []:
                calls[call.get("id", "")] = len(placed)
                placed.append((index, _pending_call(call)))
        elif role == "tool" and message.get("tool_call_id") in calls:
            slot = calls.pop(message["tool_call_id"])
            pending = placed[slot][1]
            assert isinstance(pending, ToolItem)
            placed[slot] = (placed[slot][0], _answered(pending, message, outcomes))
    conversation = [i for i, m in enumerate(messages) if m.get("role") != "system"]
    return Transcript(
        items=tuple(item for index, item in placed if index >= start),
        total=len(conversation), hidden=sum(1 for i in conversation if i < start),
    )


def resume_notice(session_id: str, transcript: Transcript) -> str:
    """`Resumed session <id> · N messages`, saying how many earlier ones are not shown."""
    line = f"Resumed session {session_id} · {transcript.total} messages"
    if transcript.hidden:
        line += f" ({transcript.hidden} earlier not shown)"
    return line


def _cut(messages: list[dict[str, Any]], limit: int) -> int:
    cut = max(0, len(messages) - limit)
    while cut > 0 and messages[cut].get("role") == "tool":
        cut -= 1
    return cut


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _user_item(content: str) -> UserItem | SummaryItem:
    if content.startswith(SUMMARY_HEADER):
        return SummaryItem(content)
    return UserItem(*split_attachments(content))


def _pending_call(call: dict[str, Any]) -> ToolItem:
    function = call.get("function") or {}
    raw = function.get("arguments") or "{}"
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else dict(raw)
    except ValueError:
        arguments = {"arguments": raw}
    if not isinstance(arguments, dict):
        arguments = {"arguments": arguments}
    # No result stored: the session stopped while the call ran.
    return ToolItem(call.get("id", ""), function.get("name", "?"), arguments, "cancelled")


def _main_tool_outcomes(events: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The main agent's ToolCallFinished events by call id, in order (ids repeat across turns
    with some providers)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        if event.get("type") == "tool_call_finished" and event.get("agent_id") == "main":
            found.setdefault(event.get("call_id", ""), []).append(event)
    return found


def _answered(
    pending: ToolItem, message: dict[str, Any], outcomes: dict[str, list[dict[str, Any]]],
) -> ToolItem:
    output = _text(message.get("content"))
    candidates = outcomes.get(pending.call_id, [])
    event = next((e for e in candidates if e.get("output") == output), None)
    if event is not None:
        candidates.remove(event)
        status, diff = str(event.get("status", "ok")), event.get("diff")
    else:  # no log entry (a call cancelled before it ran): read the result text
        status, diff = _status_from_text(output), None
    return ToolItem(pending.call_id, pending.name, pending.arguments, status, output, diff)


def _status_from_text(output: str) -> str:
    if output == "cancelled":
        return "cancelled"
    return "denied" if output.startswith("Denied") else "ok"
