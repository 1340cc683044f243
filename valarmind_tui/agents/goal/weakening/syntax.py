"""Parsing a source file with tree-sitter (lazy: the pack is heavy) and reading its nodes."""

from __future__ import annotations

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


def walk(node: Node) -> list[Node]:
    """Every node below `node`, depth first (its own children first)."""
    out: list[Node] = []
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        out.append(child)
        stack.extend(reversed(child.children))
    return out
