"""VALARMIND.md's token budget: 2,500–3,600 tokens aimed at, 4,800 never passed.

Generated blocks are cut by section priority, least useful first (References, then External
Integrations... Objective last), each only as much as needed, at line boundaries with code fences
kept balanced. An optional section cut to nothing goes; a required one keeps a few lines. Blocks
the person edited are never cut. Tokens are counted with `tokens.count_tokens` (cl100k_base).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from valarmind_tui.context.init.valarmind_md import (
    HARD_CAP,
    REQUIRED,
    TARGET_TOKENS,
    blocks,
    is_edited,
    wrap,
)
from valarmind_tui.context.tokens import count_tokens

TRIM_ORDER = ("references", "integrations", "env", "endpoints", "tree", "design",
              "architecture", "sensitive", "practices", "core", "dependencies", "stack",
              "commands", "objective")
"""Least useful first: the order in which sections are cut."""
REQUIRED_FLOOR = 60
"""Tokens a required section keeps at least (its heading and first lines)."""
TRIMMED_MARK = "_…cut to fit VALARMIND.md's token budget._"


@dataclass
class Budgeted:
    text: str
    tokens: int
    trimmed: list[str] = field(default_factory=list)
    """Keys of the sections that were cut (or dropped)."""
    warnings: list[str] = field(default_factory=list)


def fit_budget(text: str, limit: int = TARGET_TOKENS[1],
               counter: Callable[[str], int] = count_tokens) -> Budgeted:
    """Cut generated blocks until `text` is within `limit` tokens (then, if hand-written text
    alone is too long, within HARD_CAP as far as generated blocks allow)."""
    trimmed: list[str] = []
    total = counter(text)
    for floor_scale in (1, 0):
        for key in TRIM_ORDER:
            if total <= limit:
                break
            block = next((b for b in blocks(text) if b.group("key") == key
                          and not is_edited(b)), None)
            if block is None:
                continue
            body = block.group("body").strip()
            size = counter(body)
            floor = REQUIRED_FLOOR * floor_scale if key in REQUIRED else 0
            keep = max(floor, size - (total - limit) - counter(TRIMMED_MARK) - 8)
            if keep >= size:
                continue
            cut = _cut(body, keep, counter)
            if not cut and key in REQUIRED:
                cut = body.splitlines()[0]  # a required section keeps at least its heading
            if not cut:
                replacement = ""
                start, end = block.start(), block.end()
                while start > 0 and text[start - 1] == "\n" and end < len(text):
                    start -= 1  # drop the blank line before the block too
            else:
                replacement = wrap(key, f"{cut}\n\n{TRIMMED_MARK}" if cut else TRIMMED_MARK)
                start, end = block.start(), block.end()
            text = text[:start] + replacement + text[end:]
            trimmed.append(key)
            total = counter(text)
        if total <= limit:
            break
    warnings = []
    if trimmed:
        names = ", ".join(dict.fromkeys(trimmed))
        warnings.append(f"VALARMIND.md was over its token budget ({limit:,}): cut {names}.")
    if total > HARD_CAP:
        warnings.append(f"VALARMIND.md is {total:,} tokens, over the {HARD_CAP:,} cap, because "
                        "of hand-written or edited text that /init does not cut.")
    return Budgeted(text, total, list(dict.fromkeys(trimmed)), warnings)


def _cut(body: str, keep: int, counter: Callable[[str], int]) -> str:
    """The longest prefix of whole lines of `body` within `keep` tokens, fences balanced."""
    if keep <= 0:
        return ""
    lines = body.splitlines()
    lo, hi = 0, len(lines)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter(_close_fence(lines[:mid])) <= keep:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0 and lines:  # one huge first line: cut it by characters
        first = lines[0]
        chars = max(0, keep * 3)
        return first[:chars] + "…" if chars else ""
    return _close_fence(lines[:lo])


def _close_fence(lines: list[str]) -> str:
    fences = sum(1 for ln in lines if ln.lstrip().startswith("```"))
    return "\n".join(lines + (["```"] if fences % 2 else []))
