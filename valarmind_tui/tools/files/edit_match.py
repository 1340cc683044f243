"""Finding `old_string` in a file for edit_file: exact, then whitespace-tolerant, then fuzzy.

Pure functions on text; `plan_edit` returns the new text or raises EditNotApplied with a message
written for the model (how many matches, or the closest text with its line numbers).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

FUZZY_THRESHOLD = 0.85
MAX_FUZZY_LINES = 20_000


class EditNotApplied(ValueError):
    """The edit cannot be applied as asked; the message tells the model what to do."""


@dataclass(frozen=True)
class EditPlan:
    new_text: str
    strategy: str
    """exact, whitespace or fuzzy."""
    ranges: tuple[tuple[int, int], ...]
    """1-based inclusive line ranges that were replaced (in the old text)."""
    similarity: float = 1.0


def _norm(line: str) -> str:
    return " ".join(line.split())


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _non_overlapping(starts: list[int], size: int) -> list[int]:
    kept: list[int] = []
    for start in starts:
        if not kept or start >= kept[-1] + size:
            kept.append(start)
    return kept


def _ambiguous(count: int, lines: list[int], how: str = "") -> EditNotApplied:
    where = ", ".join(str(n) for n in lines[:10])
    return EditNotApplied(
        f"old_string matches {count} places{how} (lines {where}). Include more surrounding "
        "lines to make it unique, or set replace_all to change every one."
    )


def plan_edit(text: str, old: str, new: str, replace_all: bool = False) -> EditPlan:
    """The file's new text after replacing `old` with `new`."""
    if "\r\n" in text and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    exact = _exact(text, old, new, replace_all)
    if exact is not None:
        return exact
    lines = text.splitlines(keepends=True)
    old_lines = old.splitlines()
    while old_lines and not old_lines[0].strip():
        old_lines.pop(0)
    while old_lines and not old_lines[-1].strip():
        old_lines.pop()
    if not old_lines:
        raise EditNotApplied("old_string is only whitespace and was not found.")
    loose = _whitespace(lines, old_lines, new, replace_all)
    if loose is not None:
        return loose
    return _fuzzy(lines, old_lines, new, replace_all)


def _exact(text: str, old: str, new: str, replace_all: bool) -> EditPlan | None:
    count = text.count(old)
    if count == 0:
        return None
    starts: list[int] = []
    pos = text.find(old)
    while pos != -1:
        starts.append(pos)
        pos = text.find(old, pos + len(old))
    if count > 1 and not replace_all:
        raise _ambiguous(count, [_line_of(text, s) for s in starts])
    result = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    ranges = tuple(
        (_line_of(text, s), _line_of(text, s + max(len(old) - 1, 0))) for s in starts
    )
    return EditPlan(result, "exact", ranges)


def _replace_windows(
    lines: list[str], starts: list[int], size: int, old_lines: list[str], new: str
) -> str:
    """Replace each window of `size` lines with `new`, re-indented to the file's indentation."""
    eol = "\r\n" if any(ln.endswith("\r\n") for ln in lines) else "\n"
    old_indent = _indent(old_lines[0])
    out = list(lines)
    for start in reversed(starts):
        file_indent = _indent(lines[start])
        block = []
        for line in new.splitlines():
            if not line.strip():
                block.append("")
            elif line.startswith(old_indent):
                block.append(file_indent + line[len(old_indent) :])
            else:
                block.append(line)
        last = lines[start + size - 1]
        ends_with_eol = last.endswith(("\n", "\r"))
        replacement = [ln + eol for ln in block]
        if replacement and not ends_with_eol:
            replacement[-1] = replacement[-1].removesuffix(eol)
        out[start : start + size] = replacement
    return "".join(out)


def _whitespace(
    lines: list[str], old_lines: list[str], new: str, replace_all: bool
) -> EditPlan | None:
    size = len(old_lines)
    targets = [_norm(ln) for ln in old_lines]
    normed = [_norm(ln) for ln in lines]
    starts = [i for i in range(len(lines) - size + 1) if normed[i : i + size] == targets]
    starts = _non_overlapping(starts, size)
    if not starts:
        return None
    if len(starts) > 1 and not replace_all:
        raise _ambiguous(len(starts), [s + 1 for s in starts], " when whitespace is ignored")
    new_text = _replace_windows(lines, starts, size, old_lines, new)
    return EditPlan(new_text, "whitespace", tuple((s + 1, s + size) for s in starts))


def _scores(lines: list[str], old_lines: list[str]) -> list[tuple[float, int, int]]:
    """(similarity, start, size) of every window worth knowing about, best first."""
    target = "\n".join(_norm(ln) for ln in old_lines)
    normed = [_norm(ln) for ln in lines]
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    size = len(old_lines)
    sizes = sorted({size, max(size - 1, 1), size + 1}) if size >= 3 else [size]
    best = 0.0
    found: list[tuple[float, int, int]] = []
    for width in sizes:
        for start in range(0, max(len(lines) - width + 1, 0)):
            matcher.set_seq1("\n".join(normed[start : start + width]))
            floor = min(best, FUZZY_THRESHOLD)
            if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
                continue
            ratio = matcher.ratio()
            best = max(best, ratio)
            found.append((ratio, start, width))
    found.sort(key=lambda f: (-f[0], f[1]))
    return found


def _fuzzy(lines: list[str], old_lines: list[str], new: str, replace_all: bool) -> EditPlan:
    if len(lines) > MAX_FUZZY_LINES:
        raise EditNotApplied("old_string was not found (the file is too long to search "
                             "approximately); copy the exact text from read_file.")
    scores = _scores(lines, old_lines)
    if not scores:
        raise EditNotApplied("old_string was not found: the file is empty.")
    ratio, start, width = scores[0]
    if ratio < FUZZY_THRESHOLD:
        raise EditNotApplied(
            "old_string was not found, not even approximately. The closest text is at lines "
            f"{start + 1}-{start + width} ({ratio:.0%} similar):\n"
            f"{_quote(lines, start, width)}\n"
            "Read the file and copy the exact text (without the line-number prefix), then retry."
        )
    rivals = [s for r, s, w in scores[1:] if r >= FUZZY_THRESHOLD
              and (s >= start + width or s + w <= start)]
    if rivals:
        raise _ambiguous(len(rivals) + 1, sorted([start + 1, *(s + 1 for s in rivals)]),
                         " approximately (no exact match)")
    if replace_all:
        raise EditNotApplied(
            "replace_all needs the exact text, and old_string has no exact match. The closest "
            f"text is at lines {start + 1}-{start + width} ({ratio:.0%} similar):\n"
            f"{_quote(lines, start, width)}"
        )
    new_text = _replace_windows(lines, [start], width, old_lines, new)
    return EditPlan(new_text, "fuzzy", ((start + 1, start + width),), ratio)


def _quote(lines: list[str], start: int, width: int) -> str:
    return "\n".join(
        f"{n:>6}\t{lines[n - 1].rstrip(chr(13) + chr(10))}"
        for n in range(start + 1, start + width + 1)
    )
