"""Parsing a source file with tree-sitter (lazy: the pack is heavy) and reading its nodes."""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Any

_SPACE = re.compile(r"\s+")

Node = Any
"""A tree_sitter.Node (the pack ships no stubs we rely on)."""


@lru_cache(maxsize=8)
def _parser(language: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(language)  # type: ignore[arg-type]  # the pack types names as a Literal


def parse(language: str, text: str) -> Node | None:
    """The root node, or None when the file does not parse (then nothing can be compared)."""
    tree = _parser(language).parse(text.encode("utf-8", errors="replace"))
    root = tree.root_node
    return None if root.has_error else root


def text_of(node: Node) -> str:
    return str(node.text.decode("utf-8", errors="replace"))


def flat(text: str) -> str:
    """Whitespace collapsed: a reformatted line is the same line."""
    return _SPACE.sub(" ", text).strip()


def line_of(node: Node) -> int:
    return int(node.start_point[0]) + 1


@lru_cache(maxsize=16)
def _query(language: str, types: tuple[str, ...]) -> Any:
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    lang = get_language(language)  # type: ignore[arg-type]  # the pack types names as a Literal
    return Query(lang, "[" + " ".join(f"({t})" for t in types) + "] @node")


def nodes_of(language: str, root: Node, types: tuple[str, ...]) -> list[Node]:
    """Every node of `types` below `root`, in source order (one query, run in C: walking a
    large file's tree node by node in Python cost a second per round)."""
    from tree_sitter import QueryCursor

    found = QueryCursor(_query(language, types)).captures(root).get("node", [])
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte))


def within(nodes: list[Node], scope: Node) -> list[Node]:
    """The nodes (sorted, from `nodes_of`) inside `scope`."""
    starts = [n.start_byte for n in nodes]
    lo = bisect.bisect_left(starts, scope.start_byte)
    hi = bisect.bisect_left(starts, scope.end_byte)
    return [n for n in nodes[lo:hi] if n.end_byte <= scope.end_byte]
