"""Streamed Markdown as finished top-level blocks plus the one still open.

In CommonMark a top-level block is final once the parser has started the next one: nothing that
arrives later can reopen it (the one exception, a link reference defined further down, is not
worth a re-render of the whole answer). So each finished block can be rendered once, and only
the open block needs rendering again as text streams in.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from markdown_it import MarkdownIt

PARSER = MarkdownIt().enable("strikethrough").enable("table")  # what rich.markdown parses
_BLOCKS = MarkdownIt().enable("strikethrough").enable("table").disable(["inline", "text_join"])
"""The same parser without its inline pass: where blocks start does not depend on it (a
600-item open list parsed in 94 ms with it, 41 without)."""
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+$")
"""One line with its ending, as markdown-it counts lines (str.splitlines also splits on \f)."""


def _block_starts(source: str) -> list[int]:
    """First line of each top-level block in `source`."""
    return [
        token.map[0]
        for token in _BLOCKS.parse(source)
        if token.level == 0 and token.map is not None and token.nesting >= 0
    ]


class MarkdownSplitter:
    """Feeds Markdown in pieces; hands back each top-level block once it is finished."""

    def __init__(self) -> None:
        self.closed: list[str] = []
        """Source of each finished block, in order (with its trailing blank lines)."""
        self.open_text = ""
        """Source after the last finished block: the block still growing."""
        self.fence: OpenFence | None = None
        """The open block when it is an unclosed fenced code block at the left margin (kept up
        to date piece by piece: finding its lines again took 3-6 ms a frame at 4,000 lines)."""
        self._closer: re.Pattern[str] | None = None
        """While `fence` is open: what could close it. Until a new line matches, no block can
        end, and the text is not parsed again (parsing a 4,000-line open fence on every frame
        took 10-17 ms a frame)."""
        self._last_item = -1
        """When the open block is a list at the left margin: where its last item starts in
        `open_text` (-1 otherwise). A block can only end after it, and that item parses the
        same on its own, so only the text from there is parsed while the list goes on (the
        whole list took 33 ms a frame at 600 items)."""

    @property
    def source(self) -> str:
        return "".join(self.closed) + self.open_text

    def feed(self, text: str) -> list[str]:
        """Append `text`; return the blocks it finished (often none)."""
        continued = self.open_text.rfind("\n") + 1  # the line `text` continues
        self.open_text += text
        if self.fence is not None and self._closer is not None \
                and not self._closer.search(self.open_text, continued):
            lines = self.fence.lines
            if lines and not lines[-1].endswith("\n"):  # a partial line (or half a \r\n)
                text = lines.pop() + text
            lines.extend(_LINE.findall(text))
            return []
        if self._last_item >= 0:
            tail = self.open_text[self._last_item:]
            if len(_block_starts(tail)) < 2:  # the list goes on
                self._last_item += _last_item_offset(tail)
                return []
        starts = _block_starts(self.open_text)
        if len(starts) < 2:
            self._remember_open_block()
            return []
        lines = _LINE.findall(self.open_text)
        # Anything before the first block (blank lines, link definitions) goes with it.
        bounds = [0, *starts[1:]]
        finished = ["".join(lines[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
        self.open_text = "".join(lines[bounds[-1]:])
        self.closed.extend(finished)
        self._remember_open_block()
        return finished

    def _remember_open_block(self) -> None:
        """What lets the next pieces skip parsing the whole open block: its fence, or its
        list's last item."""
        self.fence, self._closer = _open_fence_and_closer(self.open_text)
        listed = None if self.fence is not None else open_list(self.open_text)
        self._last_item = -1 if listed is None else _last_item_offset(self.open_text, listed)


_FENCE_OPENER = re.compile(r"(`{3,}|~{3,})([^`\n]*)\n")


class OpenFence(NamedTuple):
    """A fenced code block still being written: its language, the lines so far (the last one
    possibly partial) and its opening run of backticks or tildes."""

    language: str
    lines: list[str]
    marker: str


def _closing_run(marker: str) -> str:
    """How a line that closes a fence opened by `marker` starts: 0-3 spaces, then a run of the
    same character at least as long."""
    return rf" {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}"


def open_fence(text: str) -> OpenFence | None:
    """`text` as an unclosed fenced code block at the left margin, or None."""
    opener = _FENCE_OPENER.match(text)
    if opener is None:
        return None
    marker = opener.group(1)
    lines = _LINE.findall(text[opener.end():])
    closing = re.compile(_closing_run(marker) + r"[ \t]*\r?\n?")
    if any(closing.fullmatch(line) for line in lines):
        return None
    return OpenFence(opener.group(2).strip().partition(" ")[0] or "text", lines, marker)


def _open_fence_and_closer(text: str) -> tuple[OpenFence | None, re.Pattern[str] | None]:
    """For `text` an unclosed fenced code block at the left margin: the fence, and a pattern
    matching any line that might close it (its start is a closing fence's; a line it matches
    only makes the splitter parse again)."""
    fence = open_fence(text)
    if fence is None:
        return None, None
    return fence, re.compile("^" + _closing_run(fence.marker), re.MULTILINE)


_LIST_ITEM = re.compile(r"( {0,3})(?:([-+*])|\d{1,9}([.)]))(?:[ \t]|\r?\n|\r|$)")


class OpenList(NamedTuple):
    """A list still being written at the left margin: its lines (with their endings) and the
    line each of its items starts on."""

    lines: list[str]
    item_starts: list[int]


def open_list(text: str) -> OpenList | None:
    """`text` as a list (the open block), or None. An item starts on each line with the first
    item's kind of marker (its bullet character, or its number's delimiter) at its indentation:
    in CommonMark a list ends at any other marker kind, which the splitter sees as a new block."""
    lines = _LINE.findall(text)
    first = _LIST_ITEM.match(lines[0]) if lines else None
    if first is None:
        return None
    indent, kind = first.group(1), first.group(2) or first.group(3)
    starts = []
    for number, line in enumerate(lines):
        item = _LIST_ITEM.match(line)
        if item is not None and (item.group(1), item.group(2) or item.group(3)) == (indent, kind):
            starts.append(number)
    return OpenList(lines, starts)


def _last_item_offset(text: str, listed: OpenList | None = None) -> int:
    """Where the last item of the list `text` starts (0 when `text` is not a list)."""
    listed = listed or open_list(text)
    if listed is None or not listed.item_starts:
        return 0
    return sum(map(len, listed.lines[:listed.item_starts[-1]]))
