"""Render ranked definitions as a tree of signatures that fits a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence

Def = tuple[str, int, str, tuple[str, ...], int]
"""(name, line, kind, signature lines, parent index) as cached."""


def estimate_tokens(text: str) -> int:
    """A cheap offline estimate (about 4 characters per token for code and English)."""
    return (len(text) + 3) // 4


def render(files: Sequence[str], defs: Sequence[Sequence[Def]],
           chosen: Sequence[tuple[int, str]]) -> str:
    """Each chosen (file, name) shows every definition of that name in the file, with the
    signatures of its enclosing definitions for context; files in order of first choice."""
    picked: dict[int, set[int]] = {}
    for file_index, name in chosen:
        file_defs = defs[file_index]
        rows = picked.setdefault(file_index, set())
        for i, d in enumerate(file_defs):
            if d[0] == name:
                while i >= 0 and i not in rows:
                    rows.add(i)
                    i = file_defs[i][4]
    parts: list[str] = []
    for file_index, rows in picked.items():
        parts.append(f"{files[file_index]}:")
        last_line = 0
        for i in sorted(rows):
            _, line, _, signature, _ = defs[file_index][i]
            if last_line and line > last_line + 1:
                parts.append("⋮")
            for offset, text in enumerate(signature):
                parts.append(f"{line + offset:>5}│{text}")
            last_line = line + len(signature) - 1
        parts.append("")
    return "\n".join(parts)


def fit(files: Sequence[str], defs: Sequence[Sequence[Def]],
        ranked: Sequence[tuple[int, str]], token_budget: int,
        count: Callable[[str], int] = estimate_tokens) -> tuple[str, int]:
    """The longest prefix of `ranked` whose rendering `count`s within the budget:
    (text, count used)."""
    lo, hi = 0, min(len(ranked), max(token_budget // 4, 1))
    best = ""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        text = render(files, defs, ranked[:mid])
        if count(text) <= token_budget:
            lo, best = mid, text
        else:
            hi = mid - 1
    return best, lo
