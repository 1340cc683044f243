"""Draft tags: what the regex pass reads from a Python file is what the grammar reads, for the
code a map shows (headers, nesting, constants), and calls count as references."""

from __future__ import annotations

from valarmind_tui.repomap.draft import draft_tags
from valarmind_tui.repomap.tags import Definition, extract

SOURCE = b'''"""A module."""
import os
from .core import Symbol

LIMIT = 10
NAMES: list[str] = ["a"]


class Base:
    """Docs that mention helper and cache but call nothing."""

    size = 3

    def method(self, value):
        return compute(value)

    @property
    def decorated(self) -> int:
        return 1

    async def fetch(self,
                    url: str,
                    timeout: float = 1.0) -> bytes:
        def inner(x):
            return x
        return inner(url)


if os.name:
    def platform_helper(a, b=(1, 2)):
        return Symbol(a)


def compute(v): return v * 2


class Child(Base):
    def method(self, value):
        return super().method(value)
'''


def _shape(defs: list[Definition]) -> set[tuple[str, int, str, str, str]]:
    """(name, line, kind, first signature line, enclosing name) of each definition."""
    return {(d.name, d.line, d.kind, d.signature[0], defs[d.parent].name if d.parent >= 0 else "")
            for d in defs}


def test_draft_definitions_match_the_grammar() -> None:
    draft = draft_tags(SOURCE, "python")
    exact = extract(SOURCE, "python")
    assert draft is not None
    assert _shape(draft.definitions) == _shape(exact.definitions)
    fetch = next(d for d in draft.definitions if d.name == "fetch")
    assert fetch.signature == next(d for d in exact.definitions if d.name == "fetch").signature
    assert len(fetch.signature) == 3
    assert draft.imports == exact.imports


def test_draft_references_are_calls_not_words() -> None:
    draft = draft_tags(SOURCE, "python")
    assert draft is not None
    assert draft.references["compute"] == 1 and draft.references["Symbol"] == 1
    assert "helper" not in draft.references and "value" not in draft.references
    assert "Child" not in draft.references  # a class header is no call


def test_other_languages_have_no_draft() -> None:
    assert draft_tags(b"function f() { return g(); }\n", "javascript") is None
