"""TurnAccumulator on hand-made deltas: shapes the recorded fixtures do not all cover."""

from __future__ import annotations

from valarmind_tui.providers.base import ReasoningPiece, TextPiece
from valarmind_tui.providers.normalize import TurnAccumulator


def test_anthropic_thinking_pieces_merge_into_signed_blocks() -> None:
    acc = TurnAccumulator()
    deltas = [
        {"reasoning_content": "First ", "thinking_blocks": [{"type": "thinking",
                                                             "thinking": "First "}]},
        {"reasoning_content": "idea.", "thinking_blocks": [{"type": "thinking",
                                                            "thinking": "idea."}]},
        {"thinking_blocks": [{"type": "thinking", "thinking": "", "signature": "s1"}]},
        {"thinking_blocks": [{"type": "redacted_thinking", "data": "opaque"}]},
        {"reasoning_content": "Second.", "thinking_blocks": [{"type": "thinking",
                                                              "thinking": "Second."}]},
        {"thinking_blocks": [{"type": "thinking", "thinking": "", "signature": "s2"}]},
        {"content": "Answer."},
    ]
    pieces = [p for d in deltas for p in acc.feed_delta(d)]
    turn = acc.finish()
    assert turn.thinking_blocks == (
        {"type": "thinking", "thinking": "First idea.", "signature": "s1"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "thinking", "thinking": "Second.", "signature": "s2"},
    )
    assert turn.reasoning == "First idea.Second."
    assert [type(p) for p in pieces] == [ReasoningPiece] * 3 + [TextPiece]


def test_calls_without_index_continue_by_id_and_parts_split_thinking() -> None:
    acc = TurnAccumulator()
    deltas = [
        {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]},
                     {"type": "text", "text": "Calling."}]},
        {"tool_calls": [{"id": "a1", "function": {"name": "grep", "arguments": '{"pat'}}]},
        {"tool_calls": [{"id": "a1", "function": {"arguments": 'tern": "x"}'}}]},
        {"tool_calls": [{"id": "b2", "function": {"name": "glob",
                                                  "arguments": {"pattern": "*"}}}]},
    ]
    for d in deltas:
        list(acc.feed_delta(d))
    turn = acc.finish()
    assert (turn.text, turn.reasoning) == ("Calling.", "hmm")
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("a1", "grep", {"pattern": "x"}), ("b2", "glob", {"pattern": "*"})]
