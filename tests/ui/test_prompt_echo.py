"""A keystroke's echo does less work (issue #36) and draws the same screen: the main screen's
compositor renders only the rows an update changed, the prompt repaints its text's rows (not its
border) and takes its theme's colours from the CSS once per theme."""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import OptionList, Static

from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.dirty_rows import DirtyRowsCompositor
from valarmind_tui.faces.tui.widgets.answer import CommandOutput
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.prompt import PromptInput


def _rows(app: App[Any], crop: Region, textuals: bool) -> list[list[Any]]:
    """What a partial update of `crop` writes, as the screen's compositor renders it or as
    Textual's own would: per row, the pieces between widget edges that meet the crop's columns
    (the others are never written)."""
    compositor = app.screen._compositor
    if textuals:
        compositor._get_renders = partial(Compositor._get_renders, compositor)  # type: ignore[method-assign]  # why: Textual's own, on the same map
    try:
        chops = compositor._render_chops(crop, lambda y: True)
    finally:
        if textuals:
            del compositor._get_renders
    return [[(x, None if strip is None else list(strip))
             for (x, strip), end in zip(chops[y].items(), compositor.cuts[y][1:], strict=True)
             if x < crop.right and end > crop.x]
            for y in crop.line_range]


class _Scrolled(Screen[None]):
    """A header, then a scrolled box whose first rows are clipped below the screen's top."""

    def __init__(self) -> None:
        super().__init__()
        self._compositor = DirtyRowsCompositor()

    def compose(self) -> ComposeResult:
        yield Static("header\nsecond")
        with VerticalScroll(id="box"):
            for n in range(30):
                yield Static(f"row {n} " + "界" * (n % 7), classes="two" if n % 3 else "")
        yield Static("footer")


class _ScrolledApp(App[None]):
    CSS = "#box { height: 8; border: round red; } .two { height: 2; background: blue; }"

    def get_default_screen(self) -> Screen[None]:
        return _Scrolled()


async def test_a_clipped_widget_is_drawn_as_textual_draws_it() -> None:
    app = _ScrolledApp()
    async with app.run_test(size=(40, 16)) as pilot:
        box = app.query_one("#box", VerticalScroll)
        box.scroll_to(y=4, animate=False)  # a two-row item cut in half at the top
        await pilot.pause()
        width, height = app.screen.size
        for top in range(height):
            for rows in (1, 3):
                crop = Region(0, top, width, rows).intersection(app.screen.size.region)
                assert _rows(app, crop, textuals=False) == _rows(app, crop, textuals=True), crop


def _same_as_textuals(app: App[Any]) -> None:
    prompt = app.query_one(PromptInput).region
    width, height = app.screen.size
    crops = [
        prompt,  # the whole input, its border too
        Region(prompt.x + 2, prompt.y + 1, 5, 1),  # one cell run inside the text
        Region(0, prompt.y - 3, width, 5),  # the chat's last rows and the prompt's top
        Region(0, 0, width, height),  # the whole screen
        Region(width // 2, 2, 3, height - 4),  # a column across the chat and the sidebar
    ]
    for crop in crops:
        assert _rows(app, crop, textuals=False) == _rows(app, crop, textuals=True), crop


async def test_partial_updates_draw_what_textuals_compositor_draws(make_session, make_app
                                                                   ) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen._compositor, DirtyRowsCompositor)
        prompt = app.query_one(PromptInput)
        await pilot.press(*"héllo 世界 ok")
        await pilot.pause()
        _same_as_textuals(app)
        await pilot.press("ctrl+j", *"second line", "ctrl+j", "x")
        await pilot.pause()
        assert prompt.text == "héllo 世界 ok\nsecond line\nx"
        _same_as_textuals(app)
        await pilot.press("up", "end", "shift+left", "shift+left", "shift+left")
        await pilot.pause()
        assert prompt.selected_text == "ine"
        _same_as_textuals(app)
        prompt.load_text("")
        for _ in range(3):  # enough output that the chat scrolls: its first rows clipped
            await pilot.press(*"/help", "enter")
            await pilot.pause()
        await wait_for(pilot, lambda: len(app.query(CommandOutput)) == 3)
        await pilot.pause()
        assert app.query_one(ChatView).max_scroll_y > 0
        _same_as_textuals(app)
        await pilot.press("/", "c", "o")
        await wait_for(pilot, lambda: prompt.completing)
        assert app.query_one("#completions", OptionList).option_count > 0
        _same_as_textuals(app)


async def test_typing_repaints_the_text_row_only_and_the_screen_shows_it(make_session,
                                                                         make_app) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("a")
        await pilot.pause()
        painted: list[Region] = []
        update_widgets = app.screen._compositor.update_widgets

        def watched(widgets: set[Any]) -> None:
            if prompt in widgets:
                painted.extend(prompt._repaint_regions)
            update_widgets(widgets)

        app.screen._compositor.update_widgets = watched  # type: ignore[method-assign]  # why: watched
        await pilot.press("b", "left", "c")
        await pilot.pause()
        assert painted and all(r.height == 1 and r.y == 1 for r in painted)  # under the border
        assert prompt.text == "acb"
        row = app.screen._compositor.render_strips()[prompt.region.y + 1].text
        assert " acb " in row


async def test_the_prompt_takes_a_new_themes_colours(make_session, make_app) -> None:
    def fresh(prompt: PromptInput) -> Any:
        theme = dataclasses.replace(prompt._theme)
        theme.apply_css(prompt)
        return theme

    def colours(theme: Any) -> tuple[Any, ...]:
        return (theme.base_style, theme.cursor_style, theme.selection_style,
                theme.cursor_line_style)

    app: ValarMindApp = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("a")
        await pilot.pause()
        dark = colours(prompt._theme)
        assert dark == colours(fresh(prompt))
        app.theme = "valarmind-light"
        await pilot.press("b")
        await pilot.pause()
        light = colours(prompt._theme)
        assert light != dark
        assert light == colours(fresh(prompt))
        prompt.blur()
        await pilot.pause()
        prompt.focus()
        await pilot.press("c")
        await pilot.pause()
        assert colours(prompt._theme) == colours(fresh(prompt))


async def test_a_long_prompt_keeps_the_cursor_in_view(make_session, make_app) -> None:
    app = make_app(make_session())
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        for n in range(15):
            await pilot.press(*f"line {n}", "ctrl+j")
        await pilot.press(*"end")
        await pilot.pause()
        rows = prompt.scrollable_content_region.height
        assert rows < 16 and prompt.scroll_y == 16 - rows  # the last row, where the cursor is
        await pilot.press(*["up"] * 14)
        await pilot.pause()
        assert prompt.cursor_location[0] == 1 and prompt.scroll_y == 1
        await pilot.press("up", "home", "x")
        await pilot.pause()
        assert prompt.text.startswith("xline 0") and prompt.scroll_y == 0
