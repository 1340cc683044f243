"""The streamed answer's Markdown: finished blocks, lines drawn, rewrapped on resize."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset, Region
from textual.selection import Selection

from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.markdown import split
from valarmind_tui.faces.tui.markdown.render import Line
from valarmind_tui.faces.tui.markdown.split import MarkdownSplitter, open_fence
from valarmind_tui.faces.tui.widgets import streaming_markdown
from valarmind_tui.faces.tui.widgets.streaming_markdown import StreamingMarkdown

DOCUMENT = (
    "# Plan\n\nWe change `greet` in **app.py** so that it *returns* a greeting, and we keep "
    "the old name working for the callers that still use it.\n\n"
    "- read the file\n- edit the function\n\n  still the second item\n\n"
    "```python\ndef greet(name):\n\n    return f'Hello {name}'\n```\n\n"
    "| file | change |\n|------|--------|\n| app.py | greet |\n\n"
    "> A quote that\ncontinues lazily.\n\nSetext heading\n---\n\n1. one\n2. two\n"
)


def test_blocks_are_final_only_once_the_next_one_starts() -> None:
    splitter = MarkdownSplitter()
    assert splitter.feed("```python\ndef f():\n\n") == []  # a blank line inside a fence
    assert splitter.feed("    pass\n```\n") == []  # closed, but still the last block
    assert splitter.feed("\nAfter") == ["```python\ndef f():\n\n    pass\n```\n\n"]
    assert splitter.open_text == "After"


def test_feeding_piece_by_piece_splits_like_feeding_at_once() -> None:
    whole = MarkdownSplitter()
    whole.feed(DOCUMENT)
    pieces = MarkdownSplitter()
    for start in range(0, len(DOCUMENT), 3):
        pieces.feed(DOCUMENT[start:start + 3])
    assert pieces.closed == whole.closed and pieces.open_text == whole.open_text
    assert pieces.source == DOCUMENT
    assert len(whole.closed) == 7  # heading, paragraph, list, fence, table, quote, setext


FENCES = (
    "Intro\n\n```python\nx = 1\n```python\n  ```\n\n"  # an info string cannot close; 2 spaces can
    "~~~~\n~~~\n```\n   ~~~~~~  \nafter tildes\n\n"  # a shorter run cannot close; a longer one can
    "````md\n```\n````\n"  # a closing fence at least as long as the opener
    "```\nnever closed\n    ```\n"  # four spaces: code, not a closing fence
)


def test_fences_fed_in_any_pieces_split_like_the_whole_text() -> None:
    whole = MarkdownSplitter()
    whole.feed(FENCES)
    assert len(whole.closed) == 5 and whole.open_text.startswith("```\nnever closed")
    for size in (1, 2, 3, 7, 40):
        pieces = MarkdownSplitter()
        for start in range(0, len(FENCES), size):
            pieces.feed(FENCES[start:start + size])
            assert pieces.fence == open_fence(pieces.open_text)  # kept piece by piece
        assert (pieces.closed, pieces.open_text) == (whole.closed, whole.open_text), size


def test_a_long_open_fence_is_not_parsed_again_on_each_piece(monkeypatch) -> None:  # noqa: ANN001
    """Parsing the whole open block on each frame cost 10-17 ms a frame at 4,000 lines."""
    parsed: list[int] = []
    real = split._block_starts
    monkeypatch.setattr(split, "_block_starts", lambda text: parsed.append(len(text)) or real(text))
    splitter = MarkdownSplitter()
    splitter.feed("Here is the file:\n\n```python\n")
    for n in range(500):
        splitter.feed(f"    value_{n} = compute({n})\n")
    assert len(parsed) <= 3
    assert splitter.feed("``") == [] and splitter.feed("`\n") == []  # closed, still the last
    finished = splitter.feed("\nAfter the code.")
    assert len(finished) == 1 and finished[0].startswith("```python\n    value_0")
    assert finished[0].rstrip().endswith("value_499 = compute(499)\n```")


class Pane(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield StreamingMarkdown(classes="streamed")
            yield StreamingMarkdown(DOCUMENT, classes="whole")


async def test_streamed_text_renders_like_the_whole_document() -> None:
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        for start in range(0, len(DOCUMENT), 7):
            streamed.append(DOCUMENT[start:start + 7])
            if start % 70 == 0:
                await pilot.pause()  # some frames in between, as a stream has
        streamed.flush()
        whole = app.query_one(".whole", StreamingMarkdown)
        await wait_for(pilot, lambda: whole.source == DOCUMENT)
        assert streamed.source == DOCUMENT
        assert streamed.plain_text == whole.plain_text
        shown = whole.plain_text
        assert "We change greet in app.py so that it returns" in shown
        assert "def greet(name):" in shown and "still the second item" in shown
        assert not any(marker in shown for marker in ("**", "```", "# Plan", "|---"))
        await pilot.pause()
        assert streamed.size.height == len(shown.splitlines())  # laid out at its full height
        everything = Region(0, 0, streamed.size.width, streamed.size.height)
        assert [strip.text for strip in streamed.render_lines(everything)] == [
            strip.text for strip in whole.render_lines(everything)]  # as styled and drawn


async def test_a_growing_answer_styles_only_the_lines_that_changed(monkeypatch) -> None:  # noqa: ANN001
    """Textual empties a widget's cache of styled lines on any new size; an answer that only
    grew taller keeps the lines it already had (each frame restyled every visible line)."""
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        streamed.append("".join(f"paragraph {n}\n\n" for n in range(20)))
        streamed.flush()
        await pilot.pause()
        asked: list[int] = []
        real_render_line = streamed.render_line

        def counted(y: int):  # noqa: ANN202
            asked.append(y)
            return real_render_line(y)

        monkeypatch.setattr(streamed, "render_line", counted)
        per_frame = []
        for n in range(20, 30):
            asked.clear()
            streamed.append(f"paragraph {n}\n\n")
            streamed.flush()
            await pilot.pause()
            per_frame.append(len(set(asked)))
        assert streamed.size.height > 50 and max(per_frame) <= 4, per_frame
        everything = Region(0, 0, streamed.size.width, streamed.size.height)
        drawn = [strip.text.strip() for strip in streamed.render_lines(everything)]
        assert drawn == [line for n in range(30) for line in (f"paragraph {n}", "")][:-1]


async def test_a_new_width_rewraps_the_lines() -> None:
    app = Pane()
    async with app.run_test(size=(100, 60)) as pilot:
        whole = app.query_one(".whole", StreamingMarkdown)
        await wait_for(pilot, lambda: whole.source == DOCUMENT)
        wide = whole.plain_text.splitlines()
        await pilot.resize_terminal(40, 60)
        await wait_for(pilot, lambda: whole.plain_text.splitlines() != wide)
        narrow = whole.plain_text.splitlines()
        assert len(narrow) > len(wide)
        assert max(map(len, narrow)) <= whole.size.width
        assert "".join(narrow).replace(" ", "") == "".join(wide).replace(" ", "")


@pytest.mark.parametrize("limit", ["SYNC_REWRAP_BLOCKS", "SYNC_REWRAP_CHARS"])
async def test_many_or_long_blocks_rewrap_in_a_thread(monkeypatch, limit: str) -> None:  # noqa: ANN001
    monkeypatch.setattr(streaming_markdown, limit, 2)
    app = Pane()
    async with app.run_test(size=(100, 60)) as pilot:
        whole = app.query_one(".whole", StreamingMarkdown)
        await wait_for(pilot, lambda: whole.source == DOCUMENT)
        wide = whole.plain_text
        on_main = _on_main_thread(monkeypatch, whole._get_renderer())
        await pilot.resize_terminal(40, 60)
        # The old lines stay on screen (cropped) until the thread has the new ones.
        await wait_for(pilot, lambda: "so that it returns a greeting, and" not in whole.plain_text)
        assert False in on_main  # the finished blocks were rendered in a thread
        assert whole.plain_text.replace("\n", "").replace(" ", "") == (
            wide.replace("\n", "").replace(" ", ""))
        assert max(map(len, whole.plain_text.splitlines())) <= whole.size.width


async def test_selection_copies_the_rendered_text() -> None:
    app = Pane()
    async with app.run_test(size=(100, 60)) as pilot:
        whole = app.query_one(".whole", StreamingMarkdown)
        await wait_for(pilot, lambda: whole.source == DOCUMENT)
        selected, _ending = whole.get_selection(Selection(Offset(0, 0), Offset(9, 2)))
        assert selected == "Plan\n\nWe change"
        app.screen.selections = {whole: Selection(Offset(0, 2), Offset(9, 2))}
        await pilot.pause()
        line = whole.render_line(2)
        highlighted = [s.text for s in line if s.style and s.style.bgcolor is not None]
        assert "".join(highlighted).startswith("We change")


async def test_a_new_theme_recolours_the_answer() -> None:
    app = Pane()
    async with app.run_test(size=(100, 60)) as pilot:
        whole = app.query_one(".whole", StreamingMarkdown)
        await wait_for(pilot, lambda: whole.source == DOCUMENT)

        def heading_colour() -> object:
            return next(s.style.color for s in whole.render_line(0) if s.text.strip() == "Plan")

        before = heading_colour()
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await wait_for(pilot, lambda: heading_colour() != before)
        assert whole.plain_text.splitlines()[0].strip() == "Plan"


async def test_the_messages_of_an_app_share_one_renderer_per_theme() -> None:
    """A new answer no longer computes the app's CSS variables again (3-5 ms in the frame of
    its first words): the messages share one renderer, and a new theme gets a new one that
    recolours them all."""
    app = Pane()
    async with app.run_test(size=(100, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        whole = app.query_one(".whole", StreamingMarkdown)
        streamed.append("# Plan\n\nmore")
        streamed.flush()
        await wait_for(pilot, lambda: whole.source == DOCUMENT and streamed.source)
        first = whole._get_renderer()
        assert streamed._get_renderer() is first
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await wait_for(pilot, lambda: whole._get_renderer() is not first)
        assert streamed._get_renderer() is whole._get_renderer()
        assert streaming_markdown.renderer_for(app) is whole._get_renderer()
        heading = next(s for s in streamed.render_line(0) if s.text.strip() == "Plan")
        assert heading.style is not None
        assert heading.style.color == next(
            s.style.color for s in whole.render_line(0) if s.text.strip() == "Plan")


def _feed(streamed: StreamingMarkdown, source: str, size: int) -> None:
    """`source` appended and flushed `size` characters at a time, as frames of a stream."""
    for start in range(0, len(source), size):
        streamed.append(source[start:start + size])
        streamed.flush()


def _drawn_whole(streamed: StreamingMarkdown) -> list[Line]:
    """The open block rendered whole, as it will be once closed."""
    return streamed._get_renderer().render(streamed._splitter.open_text, streamed.size.width)


def _on_main_thread(monkeypatch, renderer, prefix: str = "") -> list[bool]:  # noqa: ANN001
    """For each render of a source starting with `prefix`: whether it ran on the main thread."""
    real_render, seen = renderer.render, []

    def noted(source: str, width: int):  # noqa: ANN202
        if source.startswith(prefix):
            seen.append(threading.current_thread() is threading.main_thread())
        return real_render(source, width)

    monkeypatch.setattr(renderer, "render", noted)
    return seen


def _slow_renders(monkeypatch, streamed: StreamingMarkdown, seconds: float):  # noqa: ANN001, ANN202
    """Every render of `streamed` takes `seconds` longer; the real render, returned."""
    renderer = streamed._get_renderer()
    real_render = renderer.render

    def slow(source: str, width: int):  # noqa: ANN202
        time.sleep(seconds)
        return real_render(source, width)

    monkeypatch.setattr(renderer, "render", slow)
    return real_render


async def test_a_long_open_code_block_is_drawn_in_pieces_like_the_whole() -> None:
    lines = [f"def step_{i}(value):\n    return value * {i}\n\n" for i in range(150)]
    code = "Intro.\n\n```python\n" + "".join(lines) + "# still writing"
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        _feed(streamed, code, 500)
        await pilot.pause()
        assert streamed._open_block.pieces  # drawn in pieces while it grows
        assert streamed._open_lines == _drawn_whole(streamed)  # same colours and padding rows
        streamed.append("\n```\n\nAfter.\n")  # closed: drawn whole, once
        streamed.flush()
        assert not streamed._open_block.pieces
        assert "# still writing" in streamed.plain_text and streamed.plain_text.endswith("After.")


LINE_KINDS = (
    "- item\n", "* other bullet\n", "+ plus\n", "1. first\n", "2) paren\n", "10. tenth\n",
    "  continued\n", "lazy continuation\n", "\n", "\n", "  - nested\n", "    indented\n",
    "# Heading\n", "Paragraph text\n", "---\n", "***\n", "> quote\n", "```\n", "  ```\n",
    "~~~\n", "| a | b |\n", "|---|---|\n", "   - three spaces\n", "-\n", "Setext\n", "===\n",
)


def test_random_markdown_fed_in_random_pieces_splits_like_the_whole_text() -> None:
    """The splitter's shortcuts (an open fence, an open list's last item) against parsing
    everything each time: the same blocks, whatever the pieces."""
    rng = random.Random(18)
    for _ in range(300):
        document = "".join(rng.choice(LINE_KINDS) for _ in range(rng.randint(5, 40)))
        whole = MarkdownSplitter()
        whole.feed(document)
        pieces, start = MarkdownSplitter(), 0
        while start < len(document):
            size = rng.choice((1, 2, 3, 5, 8, 13, 40))
            pieces.feed(document[start:start + size])
            start += size
        assert (pieces.closed, pieces.open_text) == (whole.closed, whole.open_text), document


def test_an_open_list_knows_where_each_of_its_items_starts() -> None:
    text = ("- one\n  still one\nlazy one\n\n  - nested, not an item of this list\n"
            "- two\n-\n- four\n  ```\n  - in code\n  ```\n* another list\n")
    found = split.open_list(text)
    assert found is not None
    assert [found.lines[n] for n in found.item_starts] == ["- one\n", "- two\n", "-\n",
                                                           "- four\n"]
    numbered = split.open_list("1. a\n2) other kind\n10. b\n   3. nested\n")
    assert numbered is not None and numbered.item_starts == [0, 2]
    assert split.open_list("Just a paragraph\n- not a list here\n") is None


async def test_a_long_open_list_is_drawn_in_pieces_like_the_whole() -> None:
    """A 600-item list drawn whole on each frame took 314 ms a frame."""
    items = [f"- item {i} with `code` and **bold**\n" + ("  continued\n" if i % 3 else "")
             + ("  - nested\n" if i % 7 == 0 else "") for i in range(45)]
    source = "Intro.\n\n" + "".join(items) + "- still writ"
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        _feed(streamed, source, 90)
        await pilot.pause()
        assert len(streamed._open_block.pieces) == 3  # 30 settled items in pieces, the last 16 live
        assert streamed._open_lines == _drawn_whole(streamed)  # same text, same colours
        streamed.append("ing\n\nAfter.\n")  # closed: drawn whole, once
        streamed.flush()
        assert not streamed._open_block.pieces and streamed.plain_text.endswith("After.")


async def test_a_long_block_that_closes_is_rendered_in_a_thread(monkeypatch) -> None:  # noqa: ANN001
    """Rendering a 2,000-line code block whole when it closed took 1.1 s on the UI thread."""
    code = "```python\n" + "".join(f"value_{i} = compute({i})\n" for i in range(300))
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        _feed(streamed, code, 400)
        await pilot.pause()
        drawn_open = list(streamed._open_lines)
        renderer = streamed._get_renderer()
        real_render = renderer.render
        threads = _on_main_thread(monkeypatch, renderer, "```python")
        streamed.append("```\n\nAfter.\n")
        streamed.flush()
        assert streamed._blocks[0] == drawn_open  # meanwhile: as it was last drawn
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert threads == [False]  # rendered whole once, in a thread
        whole = real_render(code + "```\n\n", streamed.size.width)
        assert streamed._blocks[0] == whole
        assert "value_299 = compute(299)" in streamed.plain_text
        assert streamed.plain_text.endswith("After.")


async def test_a_second_long_code_block_does_not_reuse_the_first_ones_pieces() -> None:
    first = "```python\n" + "".join(f"a_{i} = {i}\n" for i in range(40))
    second = "```\n\n```python\n" + "".join(f"b_{i} = '{i}'\n" for i in range(40))
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        streamed.append(first)
        streamed.flush()
        await pilot.pause()
        assert streamed._open_block.pieces
        streamed.append(second)  # the first block closes and the next is long at once
        streamed.flush()
        whole = streamed._get_renderer().render(streamed._splitter.open_text, streamed.size.width)
        assert streamed._open_lines == whole
        assert "b_0 = '0'" in streamed.plain_text and "a_39 = 39" in streamed.plain_text


async def test_a_fast_stream_is_drawn_less_often_than_a_slow_one(monkeypatch) -> None:  # noqa: ANN001
    """Above FAST_CHARS_PER_S lines scroll past unread: about 10 frames a second, not 20."""
    app = Pane()
    async with app.run_test(size=(70, 60)):
        streamed = app.query_one(".streamed", StreamingMarkdown)
        flushes: list[float] = []
        real_flush = streamed.flush

        def counted() -> None:
            flushes.append(asyncio.get_running_loop().time())
            real_flush()

        monkeypatch.setattr(streamed, "flush", counted)
        loop = asyncio.get_running_loop()
        end = loop.time() + 1.5
        while loop.time() < end:  # ~10,000 characters a second
            streamed.append("word " * 40)
            await asyncio.sleep(0.02)
        after_warm_up = [t for t in flushes if t > end - 1.0]
        # at least 1 / SLOWEST_FRAME_S: a loaded machine renders more slowly, and so less often
        assert 2 <= len(after_warm_up) <= 13, len(after_warm_up)


async def test_a_block_slow_to_render_is_rendered_less_often(monkeypatch) -> None:  # noqa: ANN001
    """A growing table is rendered whole on each frame (its columns depend on every row): at
    100 rows 46 ms a frame. After a frame that took t the next waits t / BUSY_SHARE."""
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        streamed.append("| a | b |\n|---|---|\n")
        streamed.flush()
        await pilot.pause()
        before = streamed._interval  # the frame's own time: FRAME_S on a quiet machine
        _slow_renders(monkeypatch, streamed, 0.06)
        streamed.append("| 1 | 2 |\n")
        streamed.flush()
        assert streamed._interval > before
        assert streamed._interval >= 0.06 / streaming_markdown.BUSY_SHARE
        assert streamed._interval <= streaming_markdown.SLOWEST_FRAME_S


async def test_an_open_block_slow_to_render_is_rendered_in_a_thread(monkeypatch) -> None:  # noqa: ANN001
    """A growing 400-row table took 370 ms a frame on the UI thread (a long quote or paragraph
    alike): after a frame of an open block that slow, it is rendered in a thread, shown as last
    drawn meanwhile, and when it closes it is rendered whole in a thread too."""
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        streamed.append("| a | b |\n|---|---|\n| 1 | 2 |\n")
        streamed.flush()
        await pilot.pause()
        renderer = streamed._get_renderer()
        real_render = _slow_renders(monkeypatch, streamed, 0.05)
        streamed.append("| 3 | 4 |\n")
        streamed.flush()  # a slow frame, still on the UI thread
        assert "3" in streamed.plain_text
        threads = _on_main_thread(monkeypatch, renderer, "| a |")
        drawn = list(streamed._open_lines)
        streamed.append("| 5 | 6 |\n")
        streamed.flush()
        assert streamed._open_lines == drawn  # meanwhile: as it was last drawn
        await wait_for(pilot, lambda: "5" in streamed.plain_text)
        assert threads == [False]
        width = streamed.size.width
        assert streamed._open_lines == real_render(streamed._splitter.open_text, width)

        streamed.append("\nAfter.\n")
        streamed.flush()
        await wait_for(pilot, lambda: len(threads) == 2 and not app.workers)
        await pilot.pause()
        assert threads == [False, False]
        assert streamed._blocks[0] == real_render(streamed._splitter.closed[0], width)
        assert streamed.plain_text.endswith("After.")


async def test_the_last_paragraph_is_drawn_when_a_slow_block_closed_under_a_thread(
        monkeypatch) -> None:  # noqa: ANN001
    """Issue #37: on a paused or loaded machine every frame looks slow, so the open block goes
    to a thread. While that thread still drew paragraph 1, the next piece closed it and the
    final paragraph opened (also slow); its last words came with the turn's end. The thread's
    result was for a block already closed, so it was dropped, and nothing drew the final
    paragraph again: its end was never on screen while the status said done."""
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        streamed.append("Intro paragraph.\n\nFirst long paragraph")
        streamed.flush()
        await pilot.pause()
        _slow_renders(monkeypatch, streamed, 0.2)
        streamed.append(" grows")
        streamed.flush()  # slow on the UI thread: the open block is known slow from now on
        streamed.append(" and grows")
        streamed.flush()  # drawn in a thread, which is still at work below
        assert streamed._open_in_thread
        streamed.append(" more.\n\nThe final paragraph")
        streamed.flush()  # paragraph 1 closes; the final one opens and is slow to draw too
        streamed.append(" ends with ENDMARKER.")
        streamed.flush()  # the turn ended: the last frame
        await wait_for(pilot, lambda: not app.workers, timeout=10)
        await pilot.pause()
        await wait_for(pilot, lambda: "ENDMARKER" in streamed.plain_text, timeout=10)
        assert streamed.plain_text.rstrip().endswith("The final paragraph ends with ENDMARKER.")


async def test_blocks_are_rendered_as_their_text_comes_and_the_frame_only_adds_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast answer (2,000 tokens in 0.1 s) left half its blocks to the frame drawn when the
    model finished: 30-70 ms between its last words and the screen's. The frame now renders
    only the open block; what it shows is the same, and nothing shows before it."""
    sections = "".join(f"## Step {n}\n\nWe change `greet`, step {n}.\n\n- read\n- edit\n\n"
                       for n in range(20)) + "Done: the end"
    app = Pane()
    async with app.run_test(size=(70, 60)) as pilot:
        streamed = app.query_one(".streamed", StreamingMarkdown)
        streamed.append("# Answer\n\n")
        await wait_for(pilot, lambda: streamed.source == "# Answer\n\n")
        renderer = streaming_markdown.renderer_for(app)
        rendered: list[str] = []
        real = renderer.render
        monkeypatch.setattr(renderer, "render", lambda text, width: rendered.append(text)
                            or real(text, width))
        for start in range(0, len(sections), 40):  # no frame in between
            streamed.append(sections[start:start + 40])
        assert streamed.source == "# Answer\n\n" and "Step" not in streamed.plain_text
        assert len(rendered) >= 50  # the closed blocks, as their text came
        rendered.clear()
        streamed.flush()  # the frame at TurnFinished
        assert rendered == ["Done: the end"]  # the open block alone
        app.query_one(".whole", StreamingMarkdown).update("# Answer\n\n" + sections)
        await pilot.pause()
        assert streamed.source == "# Answer\n\n" + sections
        assert streamed.plain_text == app.query_one(".whole", StreamingMarkdown).plain_text
        assert streamed.plain_text.rstrip().endswith("Done: the end")
