"""How big a conversation is, by the model's own count where there is one (issue #36).

The provider reports the tokens of every request: the main agent's last request (its prompt
tokens) plus its answer (the completion tokens) is the history the model saw, counted by the
model itself. What joined the history after that answer (a quality gate's note, a cancelled
answer's text) is bounded by its UTF-8 bytes, and counted with tiktoken only when that bound
brings the sum near the window: a long conversation far from its window never loads the
tokenizer (24 MB in the UI process).

A report describes the very messages it was made for (the same objects, in order): a history
compacted, rewound or cleared since, another model chosen (or a fallback model that answered
in its place), a provider that reports no usage, 0 prompt tokens or fewer than the messages'
characters allow leave no usable report, and the history is measured as before: its bytes
first, tiktoken past them.

The last report is kept with a stored session (`kept_count`) with a digest of the messages it
counted: a resumed conversation whose first messages are those, read back, is measured by it
(`restored_size`); one whose are not (the count was of its compacted form: the store keeps
every message) is measured as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from valarmind_tui.context.compaction import DEFAULT_THRESHOLD
from valarmind_tui.context.tokens import count_message_tokens, message_chars, most_message_tokens
from valarmind_tui.providers.base import Usage
from valarmind_tui.store.sessions import ReportedCount

MOST_CHARS_PER_TOKEN = 16
"""More characters than this per reported token is no count of these messages (a server that
counts the last message only, or makes a figure up): the bytes and tiktoken measure them. Only
long runs of spaces or repeated signs pack more into one token."""


@dataclass(frozen=True)
class ReportedSize:
    """The tokens a provider reported for a request and its answer, and what they counted."""

    model: str | None
    """The model that counted: another model's tokenizer counts otherwise."""
    tokens: int
    """Prompt tokens plus completion tokens."""
    covered: tuple[dict[str, Any], ...]
    """The request's messages and the answer, the very objects of the history."""

    def added_since(self, history: Sequence[dict[str, Any]], model: str | None
                    ) -> list[dict[str, Any]] | None:
        """The messages `history` gained after the reported answer; None when the report is
        not about `history` (it no longer starts with the counted messages) or `model`."""
        if model != self.model or len(history) < len(self.covered):
            return None
        if any(now is not then for now, then in zip(history, self.covered, strict=False)):
            return None
        return list(history[len(self.covered):])


def reported_size(usage: Usage, messages: Sequence[dict[str, Any]], model: str | None
                  ) -> ReportedSize | None:
    """What `usage` says of `messages` (the request's, its answer last); None when the provider
    reported no prompt tokens (no usage at all, or a server that counts none) or too few for
    the messages' characters."""
    tokens = usage.prompt_tokens + max(0, usage.completion_tokens)
    if usage.prompt_tokens <= 0 or tokens * MOST_CHARS_PER_TOKEN < message_chars(messages):
        return None
    return ReportedSize(model, tokens, tuple(messages))


def kept_count(reported: ReportedSize,
               as_stored: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
               ) -> ReportedCount:
    """What the store keeps of `reported`. Its digest is of the messages `as_stored` (masked):
    as they are read back, and no way to test a guess of a secret they held."""
    return ReportedCount(reported.model, reported.tokens, len(reported.covered),
                         messages_digest(as_stored(list(reported.covered))))


def restored_size(count: ReportedCount, history: Sequence[dict[str, Any]]
                  ) -> ReportedSize | None:
    """The kept `count` as a report of the resumed `history`, when its first messages are the
    ones counted; else None."""
    covered = tuple(history[:count.messages])
    if len(covered) < count.messages or messages_digest(covered) != count.digest:
        return None
    return ReportedSize(count.model, count.tokens, covered)


def messages_digest(messages: Sequence[dict[str, Any]]) -> str:
    """The sha256 of the messages as sent: equal for the same messages read back."""
    digest = hashlib.sha256()
    for message in messages:
        digest.update(json.dumps(message, sort_keys=True, ensure_ascii=False,
                                 default=str).encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def fits_uncounted(history: Sequence[dict[str, Any]], window: int,
                   reported: ReportedSize | None, model: str | None,
                   threshold: float = DEFAULT_THRESHOLD) -> bool | None:
    """True when the history is surely under `threshold` of the window, False when the model's
    own count is over it, None when only counting with the tokenizer can tell."""
    return _fits(history, window * threshold, reported, _since(history, reported, model))


def should_compact(history: list[dict[str, Any]], window: int, reported: ReportedSize | None,
                   model: str | None, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """True when the history uses more than `threshold` of the window: by the reported count
    and what came after it, or counted as before when no report describes it."""
    limit = window * threshold
    since = _since(history, reported, model)
    fits = _fits(history, limit, reported, since)
    if fits is not None:
        return not fits
    if reported is None or since is None:
        return count_message_tokens(history) > limit
    return reported.tokens + count_message_tokens(since) > limit


def _since(history: Sequence[dict[str, Any]], reported: ReportedSize | None,
           model: str | None) -> list[dict[str, Any]] | None:
    return None if reported is None else reported.added_since(history, model)


def _fits(history: Sequence[dict[str, Any]], limit: float, reported: ReportedSize | None,
          since: list[dict[str, Any]] | None) -> bool | None:
    if reported is None or since is None:
        return True if most_message_tokens(history) <= limit else None
    if reported.tokens > limit:
        return False
    return True if reported.tokens + most_message_tokens(since) <= limit else None
