"""Draft tags of a Python file, read by regular expressions instead of tree-sitter.

A cold map of a big project is drawn from these first (on sympy 1.4 s of CPU instead of 7.4 s)
and refined in the background by the exact parse (`refine.py`). Definitions are `def` and
`class` headers, nested by indentation as the tags query nests them. References count the names
written before a `(` (calls; the tags query also sees bases and imported names): counting every
identifier instead let parameters and words in docstrings outrank the real API (sympy: 30% of
the 20 most-imported modules named instead of 65%). The import graph is read the same way in
both passes. A `def` at the start of a line inside a string is taken for a definition, and a
line of a string at a shallower indent ends the enclosing block: a draft may show such a line
until the exact map replaces it.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from typing import Any

from valarmind_tui.repomap.files import Changed, Stamp, read_checked
from valarmind_tui.repomap.imports import extract_imports
from valarmind_tui.repomap.tags import (
    MAX_SIG_LINES,
    Definition,
    FileTags,
    signature_lines,
    skip_reason,
)

DRAFT_LANGS = frozenset({"python"})
_DEF = re.compile(  # starts with a newline: the engine skips from one to the next fast
    rb"\n([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)")
_CALL = re.compile(rb"\b([A-Za-z_]\w*)\(")
_KINDS = {b"def": "function", b"class": "class"}


def draft_tags(src: bytes, lang: str) -> FileTags | None:
    """The draft tags of `src`, or None for a language read only by its grammar."""
    if lang not in DRAFT_LANGS:
        return None
    definitions: list[Definition] = []
    stack: list[tuple[int, int]] = []  # (indent, index) of enclosing definitions
    line, counted, after = 1, 0, 0  # line number at byte `counted`; end of the last header
    for match in _DEF.finditer(b"\n" + src):
        start = match.start()  # in `src`: the line after the matched newline
        indent, kind, name = len(match.group(1)), _KINDS[match.group(2)], match.group(3)
        # A block ends at a code line indented no deeper than its header.
        while stack and (stack[-1][0] >= indent
                         or _dedent(stack[-1][0]).search(src, after, start) is not None):
            stack.pop()
        line += src.count(b"\n", counted, start)
        counted = start
        count = _header_lines(src, start + indent)
        definitions.append(Definition(name.decode("ascii"), line, kind,
                                      signature_lines(src, start + indent, count),
                                      stack[-1][1] if stack else -1))
        stack.append((indent, len(definitions) - 1))
        after = _line_end(src, start + indent, count)
    calls = Counter(_CALL.findall(src))
    for d in definitions:  # a `def name(` or `class Name(` header is no call
        if d.name + "(" in d.signature[0]:
            calls[d.name.encode()] -= 1
    refs = {k.decode("ascii"): v for k, v in calls.items() if v > 0}
    return FileTags(definitions, refs, extract_imports(src, lang))


@cache
def _dedent(indent: int) -> re.Pattern[bytes]:
    """A code line indented at most `indent` columns (not blank, not a comment)."""
    return re.compile(rb"^[ \t]{0,%d}[^ \t\r\n#]" % indent, re.M)


def _header_lines(src: bytes, start: int) -> int:
    """Lines of a `def`/`class` header: until its brackets close (at most MAX_SIG_LINES)."""
    depth, pos = 0, start
    for count in range(1, MAX_SIG_LINES + 1):
        end = src.find(b"\n", pos)
        text = src[pos:] if end < 0 else src[pos:end]
        depth += sum(text.count(c) for c in b"([{") - sum(text.count(c) for c in b")]}")
        if end < 0 or depth <= 0:
            return count
        pos = end + 1
    return MAX_SIG_LINES


def _line_end(src: bytes, start: int, count: int) -> int:
    """The byte after the `count` lines from `start`."""
    pos = start
    for _ in range(count):
        end = src.find(b"\n", pos)
        if end < 0:
            return len(src)
        pos = end + 1
    return pos


def draft_file(job: tuple[str, str, str, Stamp]
               ) -> tuple[str, str | None, tuple[Any, ...] | None]:
    """(root, file, language, stamp) -> (file, why it was skipped or None, its tags as cached);
    a module-level function so that a pool's workers can run it."""
    root, rel, lang, stamp = job
    try:
        src = read_checked(f"{root}/{rel}", stamp)
    except Changed:
        return rel, "changed", None
    except OSError:
        return rel, "unreadable", None
    reason = skip_reason(src, rel)
    found = draft_tags(src, lang) if reason is None else None
    if found is None:
        return rel, reason or "parse_error", None
    definitions = [(d.name, d.line, d.kind, d.signature, d.parent) for d in found.definitions]
    return rel, None, (definitions, found.references, found.imports)
