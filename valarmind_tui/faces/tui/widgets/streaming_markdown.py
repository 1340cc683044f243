"""Markdown that grows while the model writes it, at any length.

Textual's Markdown widget mounts a widget per block and lays them all out again on each append,
so a long answer falls seconds behind the model. Here a finished block is rendered to lines once;
only the open block is rendered again, at most once a frame; the whole message is one widget
drawn line by line (Textual's Line API). A new width or theme renders the blocks again, in a
thread when there are many, showing the old lines meanwhile.
"""

from __future__ import annotations

from time import monotonic
from weakref import WeakKeyDictionary

from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.theme import Theme
from textual.widget import Widget

from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui.markdown.open_block import OpenBlockDrawer
from valarmind_tui.faces.tui.markdown.render import Line, MarkdownRenderer, to_strip
from valarmind_tui.faces.tui.markdown.split import MarkdownSplitter
from valarmind_tui.faces.tui.widgets.one_layout import OneLayoutPass
from valarmind_tui.faces.tui.widgets.styled_lines import KeepsStyledLinesWhenTaller

FRAME_S = 1 / 20
"""The open block is rendered again at most this often while text streams in (each frame
whose height changes costs Textual a full layout and repaint, ~8-25 ms here)."""
FAST_FRAME_S = 1 / 10
"""The interval while text comes faster than FAST_CHARS_PER_S: several lines arrive per frame
and scroll past unread either way, and half the frames save ~15% of a core at 1,000 tokens/s.
The last words are drawn at once when the model finishes (TurnFinished), not at a frame."""
FAST_CHARS_PER_S = 2_000
BUSY_SHARE = 0.25
"""At most this share of the time goes to rendering a stream: after a frame that took t, the
next comes no sooner than t / BUSY_SHARE (a growing 100-row table took 46 ms a frame, and
rendered 10 times a second it left keystrokes little room)."""
SLOWEST_FRAME_S = 0.5
BIG_BLOCK_LINES = 200
"""A block that closes with more lines than this is rendered whole in a thread (a 2,000-line
code block took 1.1 s on the UI thread when it closed); meanwhile it shows as it was last drawn
open."""
OPEN_IN_THREAD_S = 0.02
"""An open block whose frame took longer than this is rendered in a thread from then on, shown
as last drawn meanwhile (a growing 400-row table took 370 ms a frame, a 400-line quote 140 ms, a
30,000-character paragraph 120 ms: each such frame held every keystroke back for as long; in a
thread they wait for the interpreter lock's 5 ms turns). When it closes, it is rendered whole in
a thread too."""
SYNC_REWRAP_BLOCKS = 150
SYNC_REWRAP_CHARS = 20_000
"""Up to this many finished blocks, and this much of their source, are rendered again on the
spot (a new width or theme); more go to a thread (a 2,000-line code block took 1.1 s)."""

_GAP: Line = ()
_RENDERERS: WeakKeyDictionary[App[object], tuple[Theme, MarkdownRenderer]] = WeakKeyDictionary()
DRAWN_CACHE_LINES = 400
"""Drawn Strips kept for redraws (about ten screens)."""


class StreamingMarkdown(KeepsStyledLinesWhenTaller, OneLayoutPass, Widget):
    """A Markdown document that text is appended to."""

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; }
    """

    def __init__(
        self, source: str = "", *, id: str | None = None, classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._splitter = MarkdownSplitter()
        self._unfed = visible(source)
        self._blocks: list[list[Line]] = []
        """Lines of each finished block at `_width`."""
        self._closed_lines: list[Line] = []
        """The finished blocks' lines with a blank line between blocks."""
        self._open_lines: list[Line] = []
        self._width = 0
        self._renderer: MarkdownRenderer | None = None
        self._timer: object | None = None
        self._last_flush = 0.0
        self._interval = FRAME_S
        self._drawn: dict[int, Strip] = {}
        """render_line's output by line (the finished lines do not change between frames)."""
        self._drawn_width = 0
        self._open_block = OpenBlockDrawer()
        self._generation = 0
        """Counts rewraps: a thread's lines are used only if no rewrap came after it."""
        self._slow_open: int | None = None
        """The open block (by its number) known to be slow to render: rendered in a thread."""
        self._open_in_thread = False
        self._open_drawn: tuple[int, str] = (0, "")
        """Which open block (its number and text) `_open_lines` show."""
        self._thread_spent = 0.0
        """How long the last render of the open block in a thread took: frames are spaced by it
        as by a render here."""
        self._early: list[list[Line] | None] = []
        """The blocks closed since the last frame, rendered as their text came (None: left to
        the frame, a big or slow one); the frame adds their lines."""
        self._early_text = ""
        """The text given to the splitter since the last frame (not drawn yet)."""

    # -- what tests and callers read ----------------------------------------------------------

    @property
    def source(self) -> str:
        """The Markdown on screen (everything appended, once flushed and laid out)."""
        if not self._width:
            return ""
        source = self._splitter.source
        return source[:len(source) - len(self._early_text)]

    @property
    def plain_text(self) -> str:
        """The rendered lines as text, trailing spaces dropped."""
        return "\n".join(
            # why the ignore below: rows alternate text and style
            "".join(line[::2]).rstrip() if line else ""  # type: ignore[arg-type]  # why: above
            for line in map(self._line, range(self._line_count()))
        )

    # -- feeding ------------------------------------------------------------------------------

    def append(self, text: str) -> None:
        """Add Markdown at the end; it is drawn at the next frame."""
        if not text:
            return
        self._unfed += visible(text)  # an answer's, a file's controls are shown, not emitted
        if self._width and self.is_mounted and "\n" in text:
            self._render_closed_blocks()
        if self._timer is None and self.is_mounted:
            delay = max(0.001, self._last_flush + self._interval - monotonic())  # 0 s raises
            self._timer = self.set_timer(delay, self.flush)

    def _render_closed_blocks(self) -> None:
        """Render the blocks the text so far closes now, as it comes, not at the next frame: a
        fast answer (2,000 tokens in 0.1 s) left half its blocks to the frame drawn at
        TurnFinished, 30-70 ms between the model's last words and the screen's."""
        text, self._unfed = self._unfed, ""
        self._early_text += text
        renderer, first = self._get_renderer(), len(self._splitter.closed)
        for number, block in enumerate(self._splitter.feed(text), first):
            big = block.count("\n") > BIG_BLOCK_LINES or number == self._slow_open
            self._early.append(None if big else renderer.render(block, self._width))

    def update(self, source: str) -> None:
        """Replace the whole document."""
        self._splitter = MarkdownSplitter()
        self._unfed = visible(source)
        self._generation += 1  # what a thread renders for the old document is not used
        self._blocks, self._closed_lines, self._open_lines = [], [], []
        self._open_drawn = (0, "")
        self._open_block.reset()
        self._slow_open = None
        self._early, self._early_text = [], ""
        self._drawn.clear()
        if self._width:
            self._rewrap(self._width)
        self.refresh(layout=True)

    def flush(self) -> None:
        """Render whatever was appended since the last frame, now."""
        if self._timer is not None:
            self._timer.stop()  # type: ignore[attr-defined]  # Textual's Timer is typed loosely
            self._timer = None
        now = monotonic()
        text, self._unfed = self._unfed, ""
        early, self._early = self._early, []
        early_text, self._early_text = self._early_text, ""
        fast = len(early_text) + len(text) > FAST_CHARS_PER_S * (now - self._last_flush)
        self._interval = FAST_FRAME_S if fast else FRAME_S
        self._last_flush = now
        if not (text or early_text):
            return
        finished = self._splitter.closed[len(self._splitter.closed) - len(early):]
        finished += self._splitter.feed(text) if text else []
        rendered = early + [None] * (len(finished) - len(early))
        if not self._width:
            return  # not laid out yet: get_content_height renders everything
        before, first_changed = self._line_count(), len(self._closed_lines)
        renderer = self._get_renderer()
        was_slow = self._slow_open == len(self._splitter.closed) - len(finished)
        for number, (block, lines) in enumerate(zip(finished, rendered, strict=True)):
            big = block.count("\n") > BIG_BLOCK_LINES or was_slow
            if number == 0 and self._open_lines and big:
                self._add_block(self._open_lines)  # as last drawn, until the thread is done
                self._render_block_in_thread(len(self._blocks) - 1, block, renderer)
            else:
                self._add_block(renderer.render(block, self._width) if lines is None else lines)
        self._draw_open(renderer)
        self._redraw_from(first_changed, before)
        spent = monotonic() - now
        if self._slow_open == len(self._splitter.closed):
            spent = max(spent, self._thread_spent)
        self._space_frames(spent)

    def _redraw_from(self, first: int, lines_before: int) -> None:
        """Lines from `first` on changed (there were `lines_before`): draw them again."""
        for y in [y for y in self._drawn if y >= first]:
            del self._drawn[y]
        after = self._line_count()
        self.refresh(Region(0, first, max(1, self._width), max(lines_before, after) - first),
                     layout=after != lines_before)

    def _space_frames(self, spent: float) -> None:
        """A frame's render took `spent`: the next waits at least spent / BUSY_SHARE."""
        self._interval = min(max(self._interval, spent / BUSY_SHARE), SLOWEST_FRAME_S)

    # -- layout -------------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:
            self._rewrap(width)
        return self._line_count()

    def _rewrap(self, width: int) -> None:
        """Render every block again for `width` (a new width, or a new theme)."""
        self._width = width
        self._generation += 1
        self._drawn.clear()
        self._early, self._early_text = [], ""  # every closed block is rendered below
        if self._unfed:
            self._splitter.feed(self._unfed)
            self._unfed = ""
        renderer = self._get_renderer()
        sources = list(self._splitter.closed)
        self._open_lines = self._open_block.draw(self._splitter, renderer, width)
        self._open_drawn = (len(sources), self._splitter.open_text)
        drawn = len(self._blocks)
        small = (len(sources) <= SYNC_REWRAP_BLOCKS
                 and sum(map(len, sources)) <= SYNC_REWRAP_CHARS)
        if not drawn or small or not self.is_mounted:
            self._set_blocks([renderer.render(block, width) for block in sources])
            return
        # Many blocks: their old lines stay (cropped or padded) until the thread is done.
        for block in sources[drawn:]:
            self._add_block(renderer.render(block, width))
        generation = self._generation
        self.run_worker(
            lambda: self._render_in_thread(renderer, sources[:drawn], width, generation),
            thread=True, exclusive=True, group="rewrap", exit_on_error=False,
        )

    def _render_in_thread(
        self, renderer: MarkdownRenderer, sources: list[str], width: int, generation: int,
    ) -> None:
        blocks = [renderer.render(block, width) for block in sources]
        self.app.call_from_thread(self._apply_rewrap, blocks, generation)

    def _apply_rewrap(self, blocks: list[list[Line]], generation: int) -> None:
        if generation != self._generation:
            return  # another width or theme came meanwhile; its rewrap is on its way
        self._set_blocks(blocks + self._blocks[len(blocks):])
        self.refresh(layout=True)

    def _render_block_in_thread(self, index: int, source: str, renderer: MarkdownRenderer
                                ) -> None:
        width, generation = self._width, self._generation

        def render() -> None:
            lines = renderer.render(source, width)
            self.app.call_from_thread(self._apply_block, index, lines, generation)

        self.run_worker(render, thread=True, group="big-block", exit_on_error=False)

    def _apply_block(self, index: int, lines: list[Line], generation: int) -> None:
        if generation != self._generation or index >= len(self._blocks):
            return  # rewrapped or replaced meanwhile: that rendered it again
        blocks = list(self._blocks)
        blocks[index] = lines
        self._set_blocks(blocks)
        self.refresh(layout=True)

    def _draw_open(self, renderer: MarkdownRenderer) -> None:
        """Render the open block here, or in a thread when it is known to be slow."""
        number = len(self._splitter.closed)
        if self._slow_open == number:
            self._render_open_in_thread(renderer, number)
            return
        started = monotonic()
        self._open_lines = self._open_block.draw(self._splitter, renderer, self._width)
        self._open_drawn = (number, self._splitter.open_text)
        if monotonic() - started > OPEN_IN_THREAD_S:
            self._slow_open = number

    def _render_open_in_thread(self, renderer: MarkdownRenderer, number: int) -> None:
        if self._open_in_thread:
            return  # the render under way starts the next when it is done
        self._open_in_thread = True
        text, width, generation = self._splitter.open_text, self._width, self._generation

        def render() -> None:
            lines, started = None, monotonic()
            try:
                lines = renderer.render(text, width)
            finally:
                self.app.call_from_thread(self._apply_open, lines, number, text, generation,
                                          monotonic() - started)

        self.run_worker(render, thread=True, group="open-block", exit_on_error=False)

    def _apply_open(self, lines: list[Line] | None, number: int, text: str, generation: int,
                    spent: float) -> None:
        self._open_in_thread = False
        if lines is not None and generation == self._generation and number == len(
                self._splitter.closed):
            before = self._line_count()
            self._open_lines, self._open_drawn = lines, (number, text)
            self._redraw_from(len(self._closed_lines), before)
            self._thread_spent = spent
            self._space_frames(spent)
        # else failed, rewrapped, replaced, or the block closed meanwhile: not drawn
        open_now = (len(self._splitter.closed), self._splitter.open_text)
        if self._early_text and self._timer is None:
            self.flush()  # closed blocks wait for a frame: draw them with the open block
        elif self._open_drawn != open_now and self._timer is None:
            # No frame is coming, and a frame that came meanwhile left the open block to this
            # thread (a new open block too, when this one closed): the end of an answer.
            before = self._line_count()
            self._draw_open(self._get_renderer())
            self._redraw_from(len(self._closed_lines), before)

    def _set_blocks(self, blocks: list[list[Line]]) -> None:
        self._blocks, self._closed_lines = [], []
        self._drawn.clear()
        for block in blocks:
            self._add_block(block)

    def _add_block(self, lines: list[Line]) -> None:
        self._blocks.append(lines)
        if lines and self._closed_lines:
            self._closed_lines.append(_GAP)
        self._closed_lines.extend(lines)

    def _get_renderer(self) -> MarkdownRenderer:
        if self._renderer is None:
            self._renderer = renderer_for(self.app)
        return self._renderer

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if self._unfed:
            self.flush()

    def _theme_changed(self, _theme: object) -> None:
        self._renderer = None
        if self._width:
            self._rewrap(self._width)
            self.refresh(layout=True)

    # -- drawing ------------------------------------------------------------------------------

    def _gap_before_open(self) -> int:
        return 1 if self._closed_lines and self._open_lines else 0

    def _line_count(self) -> int:
        return len(self._closed_lines) + self._gap_before_open() + len(self._open_lines)

    def _line(self, y: int) -> Line | None:
        closed = self._closed_lines
        if y < len(closed):
            return closed[y]
        y -= len(closed) + self._gap_before_open()
        return self._open_lines[y] if 0 <= y < len(self._open_lines) else None

    def render_line(self, y: int) -> Strip:
        if self.size.width != self._drawn_width:
            self._drawn.clear()
            self._drawn_width = self.size.width
        strip = self._drawn.get(y)
        if strip is None:
            if len(self._drawn) >= DRAWN_CACHE_LINES:
                self._drawn.clear()
            strip = self._drawn[y] = self._draw(y)
        return strip

    def _draw(self, y: int) -> Strip:
        width, style = self.size.width, self.visual_style.rich_style
        line = self._line(y)
        strip = Strip.blank(width, style) if line is None else _fit(to_strip(line), width)
        strip = strip.apply_style(style)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            strip = _select(strip, span, self.screen.get_component_rich_style("screen--selection"))
        return strip.apply_offsets(0, y)

    def forget_drawn(self) -> None:
        """Drop what drawing kept (this widget's Strips and Textual's styled copies of them):
        for a finished message off screen, drawn again from its rendered lines when it shows."""
        self._drawn.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.plain_text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._drawn.clear()
        self.refresh()


def renderer_for(app: App[object]) -> MarkdownRenderer:
    """One renderer per app and theme, shared by its messages. Each message made its own: the
    app's CSS variables computed again (the shipped theme's file read and parsed), 3-5 ms in
    the frame that shows a new answer's first words."""
    theme = app.current_theme
    cached = _RENDERERS.get(app)
    if cached is not None and cached[0] is theme:
        return cached[1]
    renderer = MarkdownRenderer(app.get_css_variables(), theme.dark)
    _RENDERERS[app] = (theme, renderer)
    return renderer


def _fit(strip: Strip, width: int) -> Strip:
    """`strip` at `width` cells. Not Strip.crop_extend: for a strip already that wide it caches
    the strip in itself, a reference cycle per line drawn that only a full collection frees."""
    if strip.cell_length < width:
        return strip.extend_cell_length(width)
    return strip.crop(0, width) if strip.cell_length > width else strip


def _select(strip: Strip, span: tuple[int, int], style: Style) -> Strip:
    start, end = span
    end = strip.cell_length if end == -1 else min(end, strip.cell_length)
    if start >= end:
        return strip
    before, selected, after = strip.divide([start, end, strip.cell_length])
    on_top = Strip([Segment(text, (own or Style()) + style) for text, own, _ in selected])
    return Strip.join([before, on_top, after])

