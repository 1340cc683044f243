"""Which images a prompt points at: `@shot.png` mentions, and the path a terminal pastes when a
file is dropped on it (the whole prompt, or a word of it: absolute, `~/`, quoted,
backslash-escaped or a `file://` URI). A bare relative name (`describe logo.png`) is a word, not
a paste: it takes an `@`. Only pasted paths that exist and end like an image count; the paths
are checked and read by `media.images.load_image` afterwards."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from valarmind_tui.media.images import is_image_path

_MENTION = re.compile(r"(?:^|(?<=\s))@(\"[^\"]+\"|'[^']+'|(?:\\.|[^\s\\])+)")
_WORD = re.compile(r"\"[^\"]+\"|'[^']+'|(?:\\.|[^\s\\\"'])+")


def image_paths(text: str, root: Path) -> list[str]:
    """The image paths `text` names, in order, without duplicates: every `@mention` of an
    image file (refused later with a reason when it cannot be sent), and every pasted path
    of an image file that exists."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        path = unquoted(match.group(1).rstrip(".,;:!?)"))
        if is_image_path(path) and path not in found:
            found.append(path)
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word.startswith("@") or not _pasted(word):
            continue
        path = unquoted(word)
        if is_image_path(path) and path not in found and _exists(root, path):
            found.append(path)
    return found


def _pasted(word: str) -> bool:
    """Whether a word looks like what a terminal pastes for a dropped file."""
    return word[0] in "/~\"'" or word.startswith("file://") or "\\" in word


def unquoted(word: str) -> str:
    """A pasted path without its quotes, backslash escapes or `file://`."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        word = word[1:-1]
    else:
        word = re.sub(r"\\(.)", r"\1", word)
    if word.startswith("file://"):
        word = unquote(urlparse(word).path)
    return word


def _exists(root: Path, path: str) -> bool:
    candidate = Path(path).expanduser()
    try:
        return (candidate if candidate.is_absolute() else root / candidate).is_file()
    except OSError:
        return False
