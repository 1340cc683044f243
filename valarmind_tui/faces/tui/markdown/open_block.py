"""The block of a streamed answer that is still growing, drawn in pieces when it is long.

A long open code block or list is drawn in pieces: the settled pieces once, only its last lines
or items each frame (highlighting all 4,000 lines of a code block every frame made keystrokes
wait 78 ms; a 600-item list took 314 ms a frame). A list's pieces may differ from the whole list
in small ways (an ordered list's number width); once closed it is drawn whole, like any block.
"""

from __future__ import annotations

from valarmind_tui.faces.tui.markdown.render import Line, MarkdownRenderer
from valarmind_tui.faces.tui.markdown.split import MarkdownSplitter, OpenList, open_list

CODE_CHUNK_LINES = 10
"""A long open code block is drawn in pieces of this many lines."""
LIST_CHUNK_ITEMS = 10
"""A long open list is drawn in pieces of this many items."""


class OpenBlockDrawer:
    """Draws a splitter's open block, keeping the settled pieces of a long one."""

    def __init__(self) -> None:
        self.pieces: list[list[Line]] = []
        """Settled pieces of the long open code block or list drawn last."""
        self._key: tuple[object, ...] = ()

    def reset(self) -> None:
        self.pieces, self._key = [], ()

    def draw(self, splitter: MarkdownSplitter, renderer: MarkdownRenderer, width: int
             ) -> list[Line]:
        """The lines of `splitter`'s open block at `width`."""
        text, fence = splitter.open_text, splitter.fence
        if fence is None:
            items = open_list(text)
            if items is not None and len(items.item_starts) >= 2 * LIST_CHUNK_ITEMS:
                return self._draw_list(splitter, renderer, width, items)
        if fence is None or len(fence.lines) < 2 * CODE_CHUNK_LINES:
            self.pieces = []
            return renderer.render(text, width)
        size = CODE_CHUNK_LINES
        pieces = self._pieces_for(splitter, "code", fence.language, width, renderer)
        while (len(pieces) + 2) * size <= len(fence.lines):  # the last `size` lines stay live
            first = len(pieces) * size
            code = "".join(fence.lines[first:first + size])[:-1]
            pieces.append(renderer.render_code(
                code, fence.language, width, top=not pieces, bottom=False))
        rest = "".join(fence.lines[len(pieces) * size:]).rstrip()
        tail = renderer.render_code(rest, fence.language, width, top=False, bottom=True)
        return [line for piece in pieces for line in piece] + tail

    def _draw_list(self, splitter: MarkdownSplitter, renderer: MarkdownRenderer, width: int,
                   items: OpenList) -> list[Line]:
        size, pieces = LIST_CHUNK_ITEMS, self._pieces_for(splitter, "list", "", width, renderer)
        lines, starts = items
        while (len(pieces) + 2) * size <= len(starts):  # the last `size` items stay live
            first = len(pieces) * size
            pieces.append(renderer.render("".join(lines[starts[first]:starts[first + size]]),
                                          width))
        tail = renderer.render("".join(lines[starts[len(pieces) * size]:]), width)
        return [line for piece in pieces for line in piece] + tail

    def _pieces_for(self, splitter: MarkdownSplitter, *how: object) -> list[list[Line]]:
        """The settled pieces of the open block drawn `how`; none yet for another block."""
        key = (len(splitter.closed), *how)
        if key != self._key:
            self.pieces, self._key = [], key
        return self.pieces
