"""Compaction keeps the system prompt and recent turns, never splits a tool call from its result."""

from __future__ import annotations

from typing import Any

from valarmind_tui.context.breakdown import context_breakdown
from valarmind_tui.context.compaction import compact, split_point
from valarmind_tui.context.history_size import should_compact
from valarmind_tui.context.tokens import count_message_tokens
from valarmind_tui.providers.model_info import DEFAULT_CONTEXT_WINDOW, context_window


def _history(rounds: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "SYSTEM PROMPT"}]
    for i in range(rounds):
        messages.append({"role": "user", "content": f"question {i}"})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 5000})
        messages.append({"role": "assistant", "content": f"answer {i}"})
    return messages


def test_should_compact_only_near_the_window() -> None:
    history = _history(10)
    used = count_message_tokens(history)
    assert should_compact(history, int(used / 0.9), None, None)
    assert not should_compact(history, int(used / 0.5), None, None)


def test_split_never_leaves_a_tool_result_without_its_call() -> None:
    history = _history(5)
    for keep in range(1, 12):
        cut = split_point(history, keep_last=keep)
        assert history[cut]["role"] != "tool"


async def test_without_model_old_tool_outputs_are_truncated() -> None:
    history = _history(6)
    new, notice = await compact(history)
    assert new[0] == history[0]
    assert new[-6:] == history[-6:]
    assert "truncated old tool outputs" in notice
    assert count_message_tokens(new) < count_message_tokens(history) / 2
    assert all(len(m["content"]) < 600 for m in new[1:-6] if m["role"] == "tool")


async def test_with_fake_model_older_turns_become_a_summary(fake_model) -> None:  # type: ignore[no-untyped-def]
    from tests.fakes.model_server import ScriptedTurn
    from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

    fake_model.script(ScriptedTurn(text="SUMMARY: read a.py six times."))
    provider = LiteLLMProvider(ProviderConfig(
        model="openai/fake-model", api_base=fake_model.openai_base, api_key="sk-test",
        max_retries=0))
    history = _history(6)
    new, notice = await compact(history, provider)
    assert new[0] == history[0] and new[-6:] == history[-6:]
    assert len(new) == 2 + len(history) - split_point(history)
    assert "SUMMARY: read a.py six times." in new[1]["content"]
    assert "into a summary" in notice
    assert "question 0" in str(fake_model.requests[-1])


def test_context_window_falls_back_for_unknown_models() -> None:
    assert context_window("openai/fake-model") == DEFAULT_CONTEXT_WINDOW
    assert context_window("gpt-4o") == 128_000


def test_breakdown_counts_each_part() -> None:
    schema = {"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}
    report = context_breakdown(system_prompt="sys " * 100, project_context="ctx " * 50,
                               repo_map="", tool_schemas={"built-in": [schema],
                                                          "git": [schema, schema]},
                               history=_history(1), context_window=1000)
    rows = dict(report.rows)
    assert rows["system prompt"] > rows["project context"] > 0 and rows["repo map"] == 0
    assert rows["tools: mcp git"] == 2 * rows["tools: built-in"] > 0
    assert rows["history"] > 100
    assert "total" in report.render() and "of 1,000" in report.render()
