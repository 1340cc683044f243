"""Stored history → what a resumed session shows."""

from __future__ import annotations

import json
from typing import Any

from valarmind_tui.context.attachments import with_attachments
from valarmind_tui.context.compaction import SUMMARY_HEADER
from valarmind_tui.context.transcript import (
    AnswerItem,
    SummaryItem,
    ToolItem,
    UserItem,
    build_transcript,
    resume_notice,
)


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def _finished(call_id: str, status: str, output: str, agent: str = "main",
              diff: str | None = None) -> dict[str, Any]:
    return {"type": "tool_call_finished", "agent_id": agent, "call_id": call_id,
            "name": "x", "status": status, "output": output, "diff": diff}


def _exchange(n: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": f"answer {n}"}]


def test_tool_outcomes_come_from_the_event_log() -> None:
    messages = [
        {"role": "system", "content": "You are ValarMind."},
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "Looking.", "tool_calls": [
            _call("c0", "read_file", path="gone.py"), _call("c1", "edit_file", path="a.py")]},
        {"role": "tool", "tool_call_id": "c0", "content": "gone.py: no such file"},
        {"role": "tool", "tool_call_id": "c1", "content": "Edited a.py"},
        {"role": "assistant", "content": None, "tool_calls": [_call("c0", "bash", command="rm")]},
        {"role": "tool", "tool_call_id": "c0", "content": "Denied: not allowed"},
        {"role": "assistant", "content": "Done."},
    ]
    events = [
        _finished("c0", "ok", "a specialist's call with the same id", agent="code-1"),
        _finished("c0", "error", "gone.py: no such file"),
        _finished("c1", "ok", "Edited a.py", diff="-a\n+b\n"),
        _finished("c0", "denied", "Denied: not allowed"),
    ]
    transcript = build_transcript(messages, events)
    assert transcript.items == (
        UserItem("fix it"),
        AnswerItem("Looking."),
        ToolItem("c0", "read_file", {"path": "gone.py"}, "error", "gone.py: no such file"),
        ToolItem("c1", "edit_file", {"path": "a.py"}, "ok", "Edited a.py", "-a\n+b\n"),
        ToolItem("c0", "bash", {"command": "rm"}, "denied", "Denied: not allowed"),
        AnswerItem("Done."),
    )
    assert (transcript.total, transcript.hidden) == (7, 0)


def test_call_without_a_result_or_log_entry() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [
            _call("a", "bash", command="sleep 9"), _call("b", "bash", command="ls")]},
        {"role": "tool", "tool_call_id": "a", "content": "cancelled"},
    ]
    items = build_transcript(messages).items
    assert [(i.call_id, i.status) for i in items if isinstance(i, ToolItem)] == [
        ("a", "cancelled"), ("b", "cancelled")]


def test_long_history_shows_the_last_messages_and_counts_the_rest() -> None:
    messages = [{"role": "system", "content": "sys"}]
    for n in range(30):
        messages += _exchange(n)
    transcript = build_transcript(messages, limit=10)
    assert transcript.items[0] == UserItem("question 25")
    assert transcript.items[-1] == AnswerItem("answer 29")
    assert len(transcript.items) == 10
    assert (transcript.total, transcript.hidden) == (60, 50)
    notice = resume_notice("s1", transcript)
    assert notice == "Resumed session s1 · 60 messages (50 earlier not shown)"


def test_cut_never_starts_on_a_tool_result() -> None:
    messages = [
        {"role": "user", "content": "read both"},
        {"role": "assistant", "content": None, "tool_calls": [
            _call("a", "read_file", path="x"), _call("b", "read_file", path="y")]},
        {"role": "tool", "tool_call_id": "a", "content": "X"},
        {"role": "tool", "tool_call_id": "b", "content": "Y"},
        {"role": "assistant", "content": "Both read."},
    ]
    transcript = build_transcript(messages, limit=2)
    assert [getattr(i, "call_id", None) for i in transcript.items] == ["a", "b", None]
    assert transcript.items[0] == ToolItem("a", "read_file", {"path": "x"}, "ok", "X")
    assert transcript.hidden == 1


def test_summary_is_not_a_user_message_and_attachments_are_named() -> None:
    prompt = with_attachments("explain @app.py", {"app.py": "print(1)\n"})
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": f"{SUMMARY_HEADER}\nWe renamed greet."},
        {"role": "user", "content": prompt},
    ]
    assert build_transcript(messages).items == (
        SummaryItem(f"{SUMMARY_HEADER}\nWe renamed greet."),
        UserItem("explain @app.py", ("app.py",)),
    )
