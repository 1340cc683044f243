"""Styled lines kept when a widget only grows taller.

Textual empties a widget's cache of styled lines (its content with padding, border and
background applied) on any new size. A streamed answer and the message around it grow taller
on each frame, so each frame styled every visible line of both again (at 1,000 tokens/s ~36
lines of each, 10 times a second). When only the height grew, the lines above the old bottom
are what they were: these widgets keep them, and restyle only the rows that were the old
bottom padding or border (and what the widget itself marks as changed).

For widgets whose rows do not depend on their height: content drawn from the top, no
vertical alignment. Uses Textual privates (`_size_updated`, `_set_dirty`, `_styles_cache`),
pinned by the lock; tests/ui/test_streaming_markdown.py and test_widgets.py fail if they change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Region, Size

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object  # a plain mixin (as a Widget subclass it would take CSS of its own)


class KeepsStyledLinesWhenTaller(_Base):
    """Mix in before the Textual base: `class AssistantMessage(KeepsStyledLinesWhenTaller,
    OneLayoutPass, Vertical)`."""

    _taller_from: int | None = None
    """While a new size is stored: the old height, when only the height grew."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        old = self._size
        if size.width == old.width and size.height > old.height:
            self._taller_from = old.height
        try:
            return super()._size_updated(size, virtual_size, container_size, layout)
        finally:
            self._taller_from = None

    def _set_dirty(self, *regions: Region) -> None:
        old_height = self._taller_from
        if regions or old_height is None:
            super()._set_dirty(*regions)
            return
        cache = self._styles_cache
        kept, dirty = cache._cache.copy(), cache._dirty_lines.copy()
        super()._set_dirty()  # the whole widget is repainted, from the kept lines
        still_above = old_height - self.styles.gutter.bottom  # the old bottom rows are not
        cache._cache.update((y, strip) for y, strip in kept.items() if y < still_above)
        cache._dirty_lines = dirty
