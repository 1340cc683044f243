"""Outside text made safe to show in a terminal: every control character visible, none emitted.

Text from outside (a model's answer, a file, a tool's or an MCP server's result, a file name, a
command to approve) can carry what a terminal acts on instead of showing: ESC sequences that
move the cursor, erase a line or write the clipboard (OSC 52), a carriage return that draws
over what came before, bidirectional marks that reorder it, zero-width characters that hide
part of it. Every face passes such text through `visible` before it reaches a terminal, so the
person sees the exact characters; an approval also says, through `approval_warning`, that the
command holds some.

The scheme, one rule per kind:
- C0 controls (U+0000-U+001F) but newline and tab, and DEL: their Unicode Control Picture
  (ESC `␛`, CR `␍`, BEL `␇`, DEL `␡`), one cell wide as the character was meant to be;
- C1 controls (U+0080-U+009F), bidirectional marks, zero-width and other invisible format
  characters (soft hyphen, Hangul fillers, tags), line and paragraph separators: `<U+202E>`.

Cheap on the fast path: one precompiled regex search says whether anything needs replacing,
and text with nothing (almost all of it) is returned as is.
"""

from __future__ import annotations

import re

__all__ = ["approval_warning", "unusual", "visible"]

_C0 = "\x00-\x08\x0b-\x1f\x7f"
"""C0 controls but tab (09) and newline (0a), and DEL."""
_HIDDEN = (
    "\x80-\x9f"  # C1 controls (CSI, OSC, NEL...)
    "\xad\u034f"  # soft hyphen, combining grapheme joiner (invisible)
    "\u0600-\u0605\u061c\u06dd\u070f\u08e2"  # Arabic letter mark (bidi), format signs
    "\u115f\u1160\u17b4\u17b5\u3164\uffa0"  # Hangul fillers, Khmer vowels: blank letters
    "\u180e"  # Mongolian vowel separator (zero width)
    "\u200b-\u200f"  # zero-width space/joiners, LRM, RLM
    "\u2028-\u202e"  # line/paragraph separators, bidi embeddings and overrides
    "\u2060-\u206f"  # word joiner, invisible operators, bidi isolates, deprecated formats
    "\ufeff"  # zero-width no-break space (BOM)
    "\ufff9-\ufffb"  # interlinear annotations
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"  # shorthand and musical format controls
    "\U000e0000-\U000e007f"  # tag characters (invisible ASCII look-alikes)
)
_UNSAFE = re.compile(f"[{_C0}{_HIDDEN}]")


def _shown(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"<U+{code:04X}>"


_SHOWN: dict[str, str] = {}
"""Each unsafe character's visible form, filled as characters are met (a few kinds at most)."""


def _replace(match: re.Match[str]) -> str:
    char = match.group()
    shown = _SHOWN.get(char)
    if shown is None:
        shown = _SHOWN[char] = _shown(char)
    return shown


def visible(text: str) -> str:
    """`text` with every control, bidirectional and invisible character replaced by a visible
    form (`␛`, `␍`, `<U+202E>`); newline and tab are kept. Returns `text` itself when there is
    nothing to replace. Idempotent: what it returns holds nothing it would replace."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_replace, text)


def unusual(text: str) -> list[str]:
    """The visible forms of the characters `visible` would replace in `text`, each once, in
    the order met ([] for plain text)."""
    found: dict[str, None] = {}
    for match in _UNSAFE.finditer(text):
        found.setdefault(_replace(match), None)
    return list(found)


_MAX_NAMED = 8
"""Kinds named in a warning at most (the text shows them all)."""


def approval_warning(**fields: str | None) -> str:
    """One sentence for an approval whose fields (`command=`, `path=`, `diff=`...) hold
    characters a terminal would act on or hide, or "" when none do."""
    found: dict[str, None] = {}
    where = []
    for name, value in fields.items():
        kinds = unusual(value or "")
        if kinds:
            where.append(name)
            found.update(dict.fromkeys(kinds))
    if not found:
        return ""
    kinds = list(found)
    named = ", ".join(kinds[:_MAX_NAMED]) + (", …" if len(kinds) > _MAX_NAMED else "")
    return (f"⚠ this {' and '.join(where)} contains control or invisible characters (shown as "
            f"{named}): what runs is not what a terminal would show; check it before you "
            "approve.")
