"""Responses a provider garbled: duplicate tool-call ids, `tool_calls` as text, a number for
content. Each is either read sensibly or refused with a reason, never passed on broken."""

from __future__ import annotations

import pytest

from valarmind_tui.providers.failures import MalformedResponse
from valarmind_tui.providers.normalize import TurnAccumulator


def _call(index: int, call_id: str, name: str = "read_file") -> dict[str, object]:
    return {"index": index, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": '{"path": "a"}'}}


def test_duplicate_call_ids_are_never_sent_back_twice() -> None:
    acc = TurnAccumulator()
    list(acc.feed_delta({"tool_calls": [_call(0, "call_x"), _call(1, "call_x"),
                                        _call(2, "call_old")]}))
    turn = acc.finish(taken={"call_old"})
    ids = [c.id for c in turn.tool_calls]
    assert ids[0] == "call_x" and len(set(ids)) == 3 and "call_old" not in ids
    message = turn.to_message()
    assert [c["id"] for c in message["tool_calls"]] == ids


def test_a_synthetic_id_never_repeats_one_in_the_history() -> None:
    acc = TurnAccumulator()
    list(acc.feed_delta({"tool_calls": [{"index": 0, "function": {"name": "ls"}}]}))
    assert acc.finish(taken={"call_1"}).tool_calls[0].id == "call_2"


def test_tool_calls_sent_as_json_text_are_read_as_calls() -> None:
    acc = TurnAccumulator()
    list(acc.feed_message({"content": None, "tool_calls":
                           '[{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}]'}))
    calls = acc.finish().tool_calls
    assert [(c.id, c.name) for c in calls] == [("c1", "ls")]


def test_tool_calls_as_other_text_are_refused_not_one_call_per_character() -> None:
    acc = TurnAccumulator()
    with pytest.raises(MalformedResponse, match="tool_calls is text that is not JSON: abc"):
        list(acc.feed_delta({"tool_calls": "abc"}))
    assert acc.calls == {}


def test_a_number_for_content_is_its_text() -> None:
    acc = TurnAccumulator()
    assert [p.text for p in acc.feed_delta({"content": 42})] == ["42"]
    assert acc.finish().text == "42"


def test_content_of_another_kind_is_refused_with_its_type() -> None:
    with pytest.raises(MalformedResponse, match="content is set"):
        list(TurnAccumulator().feed_delta({"content": {1, 2}}))
