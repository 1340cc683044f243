"""A conversation is measured before every prompt (should it be compacted?); its long messages
are counted once, with the same counts as counting them anew."""

from __future__ import annotations

import pytest

from valarmind_tui.context import tokens
from valarmind_tui.context.history_size import should_compact
from valarmind_tui.core.tokenizer import count_tokens


def _history(n: int) -> list[dict[str, object]]:
    history: list[dict[str, object]] = [{"role": "system", "content": "You help. " * 100}]
    for i in range(n):
        history += [{"role": "user", "content": f"question {i}"},
                    {"role": "assistant", "content": f"Answer {i}: " + "words and more " * 80},
                    {"role": "user", "content": [{"type": "text", "text": "part " * 90}]}]
    return history


def _fresh_count(history: list[dict[str, object]]) -> int:
    total = 0
    for message in history:
        total += 4
        content = message["content"]
        texts = [content] if isinstance(content, str) else [p["text"] for p in content]
        total += sum(count_tokens(t) for t in texts)
    return total


def test_counts_are_those_of_counting_anew_and_long_texts_are_counted_once(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "_memo", tokens._CountMemo())
    history = _history(10)
    counted: list[str] = []

    def spy(text: str, name: str = "cl100k_base") -> int:
        counted.append(text)
        return count_tokens(text, name)

    monkeypatch.setattr(tokens, "count_tokens", spy)
    assert tokens.count_message_tokens(history) == _fresh_count(history)
    first = len(counted)
    history.append({"role": "assistant", "content": "A new answer. " * 40})
    assert tokens.count_message_tokens(history) == _fresh_count(history)
    again = counted[first:]
    assert len(again) == 1 + 10  # the new message, and the short questions (not remembered)
    assert should_compact(history, 1_000_000, None, None) is False
    assert should_compact(history, 100, None, None) is True


def test_the_memo_forgets_its_oldest_texts_past_its_size() -> None:
    memo = tokens._CountMemo(max_chars=3_000)
    texts = [f"{n} " + "x y " * 400 for n in range(5)]  # ~1,600 characters each
    for text in texts:
        assert memo.count(text) == count_tokens(text)
    assert memo._chars <= 3_000
    assert list(memo._counts) == texts[-1:]
    assert memo.count(texts[0]) == count_tokens(texts[0])
