"""One layout pass per change, not two, for the widgets an answer grows.

When a layout pass gives a widget a new size, Textual (8.x) stores the new virtual size through
its `layout=True` reactive, which asks for another layout pass and marks the whole widget dirty
again: every flush of a streaming answer drew the chat twice (a frame counter: 20 layout frames
a second for 10 flushes, ~11 ms each at 120x40). The size was just computed by that pass, so
these widgets store it without asking for another; scrollbars are still updated
(`_scroll_update`), and a change of their own content still asks for a layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Size

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object  # a plain mixin: as a Widget subclass its type would take CSS of its own


class OneLayoutPass(_Base):
    """Mix in before the Textual base: `class ChatView(OneLayoutPass, VerticalScroll)`."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)
