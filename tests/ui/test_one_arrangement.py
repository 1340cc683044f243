"""A layout frame arranges the screen's widgets once (issue #36). Textual's reflow builds a full
map of every widget but left it marked out of date when an update before it had marked it (a
widget new since the last frame), so the first region looked up after the layout, in the same
frame, arranged every widget again."""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from valarmind_tui.faces.tui.dirty_rows import DirtyRowsCompositor


class _Chat(Screen[None]):
    def __init__(self, compositor: Compositor) -> None:
        super().__init__()
        self._compositor = compositor

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="chat"):
            for n in range(30):
                yield Static(f"message {n}\nits second line")
        yield Static("status")


class _ChatApp(App[None]):
    def __init__(self, compositor: Compositor) -> None:
        super().__init__()
        self.chat_screen = _Chat(compositor)

    def on_mount(self) -> None:
        self.push_screen(self.chat_screen)


async def _full_arrangements_per_layout(compositor: Compositor) -> list[int]:
    """Mount a message at the chat's end, as an answer's first words do, then let the frames
    run: how many times each layout frame arranged every widget."""
    app = _ChatApp(compositor)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        screen = app.chat_screen
        arranged: list[int] = []
        arrange, refresh_layout = compositor._arrange_root, screen._refresh_layout

        def counted_arrange(*args: Any, **kwargs: Any) -> Any:
            if not kwargs.get("visible_only", True):
                arranged[-1] += 1
            return arrange(*args, **kwargs)

        def counted_layout(*args: Any, **kwargs: Any) -> None:
            arranged.append(0)
            refresh_layout(*args, **kwargs)

        compositor._arrange_root = counted_arrange  # type: ignore[method-assign]  # why: counted
        screen._refresh_layout = counted_layout  # type: ignore[method-assign]  # why: counted
        chat = screen.query_one("#chat", VerticalScroll)
        await chat.mount(Static("the answer's first words"))
        chat.scroll_end(animate=False)
        await pilot.pause()
        await pilot.pause()
        fresh, _ = arrange(screen, screen.outer_size, visible_only=False)
        assert compositor.full_map == fresh  # what a lookup reads is the arrangement of now
        assert str(screen.get_widget_at(1, 18)[0].render()) == "the answer's first words"
        return [count for count in arranged if count]


async def test_a_layout_frame_arranges_every_widget_once() -> None:
    counts = await _full_arrangements_per_layout(DirtyRowsCompositor())
    assert counts and set(counts) == {1}


async def test_textuals_own_compositor_arranges_them_twice() -> None:
    """What the test above guards against (if Textual fixes it, this one says so)."""
    assert 2 in await _full_arrangements_per_layout(Compositor())
