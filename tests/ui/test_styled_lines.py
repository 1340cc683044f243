"""Widgets that grow taller keep their styled lines, and still draw what a fresh render draws."""

from __future__ import annotations

import html

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.styled_lines import KeepsStyledLinesWhenTaller


class Box(KeepsStyledLinesWhenTaller, Vertical):
    """A container whose bottom rows (padding, border, subtitle) move down as it grows."""

    DEFAULT_CSS = """
    Box { height: auto; border: round red; padding: 1 2 2 2; background: $panel; }
    """


class Boxes(App[None]):
    def compose(self) -> ComposeResult:
        with Box() as box:
            box.border_subtitle = "bottom"
            yield Static("line 0", id="grows")


def _cells(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


def _drawn_again(widget: Widget) -> list[Strip]:
    """The widget's lines styled from scratch."""
    everything = Region(0, 0, *widget.region.size)
    widget._styles_cache.clear()
    return widget.render_lines(everything)


async def test_a_taller_box_draws_its_old_bottom_rows_as_content_rows() -> None:
    app = Boxes()
    async with app.run_test(size=(40, 30)) as pilot:
        box, grows = app.query_one(Box), app.query_one("#grows", Static)
        for n in range(1, 6):
            grows.update("\n".join(f"line {k}" for k in range(n + 1)))
            await pilot.pause()
            kept = box.render_lines(Region(0, 0, *box.region.size))
            assert box.region.height == n + 1 + 3 + 2  # lines, padding, border
            assert _cells(kept) == _cells(_drawn_again(box)), f"after growing to {n + 1} lines"
            assert "bottom" in kept[-1].text and "╰" in kept[-1].text


class Chat(App[None]):
    def compose(self) -> ComposeResult:
        yield AssistantMessage()


async def test_a_growing_message_styles_none_of_its_own_rows(monkeypatch) -> None:  # noqa: ANN001
    """The message around a streamed answer has no content of its own; each frame of a growing
    answer styled all its visible rows again."""
    app = Chat()
    async with app.run_test(size=(60, 50)) as pilot:
        message = app.query_one(AssistantMessage)
        message.append_text("".join(f"paragraph {n}\n\n" for n in range(10)))
        message.answer.flush()
        await pilot.pause()
        styled: list[int] = []
        real_render_line = message._styles_cache.render_line

        def counted(styles, y, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            styled.append(y)
            return real_render_line(styles, y, *args, **kwargs)

        monkeypatch.setattr(message._styles_cache, "render_line", counted)
        heights = []
        for n in range(10, 20):
            message.append_text(f"paragraph {n}\n\n")
            message.answer.flush()
            await pilot.pause()
            heights.append(message.size.height)
        assert heights[-1] > heights[0] and styled == []
        assert "paragraph\xa019" in html.unescape(app.export_screenshot())  # drawn
