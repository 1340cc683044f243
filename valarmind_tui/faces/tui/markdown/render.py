"""Markdown to terminal lines with Rich, coloured from the Textual theme.

Rendering goes through a Console of its own (not the app's), so it can run at any width and
in any thread. Lines are kept as flat tuples of text and style numbers, not Strips: a long
answer has thousands of lines, and Strips (each with its caches, segments and styles) made
Python's full garbage collections pause the UI for 300 ms at 20,000 tokens; tuples of str and
int are not tracked by the collector at all.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.theme import Theme
from textual.color import Color
from textual.strip import Strip

from valarmind_tui.faces.tui.markdown.split import PARSER

Line = tuple[str | int, ...]
"""One rendered line: text, style number, text, style number..."""

_STYLES: list[Style | None] = [None]
"""Every style a line has used, by number. Shared by all renderers (and so all themes), so
lines drawn under the previous theme still decode while they wait for their rewrap."""
_STYLE_NUMBERS: dict[Style | None, int] = {None: 0}
_STYLES_LOCK = threading.Lock()  # rewraps render in a thread too


def to_strip(line: Line) -> Strip:
    """A rendered line as a Strip to draw."""
    styles = _STYLES
    # a Line alternates text and style number; no conversions in this per-frame loop
    # why the ignore below: rows alternate text and style index; mypy sees one element type
    return Strip([Segment(line[i], styles[line[i + 1]])  # type: ignore[arg-type,index]  # why: above
                  for i in range(0, len(line), 2)])


def _pack(segments: list[Segment]) -> Line:
    numbers = _STYLE_NUMBERS
    packed: list[str | int] = []
    for text, style, control in segments:
        if control or not text:
            continue
        number = numbers.get(style)
        if number is None:
            number = _number(style)
        packed += (text, number)
    return tuple(packed)


def _number(style: Style | None) -> int:
    with _STYLES_LOCK:
        number = _STYLE_NUMBERS.get(style)
        if number is None:
            number = _STYLE_NUMBERS[style] = len(_STYLES)
            _STYLES.append(style)
        return number


class _LeftHeading(Heading):
    LEVEL_ALIGN = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


TAB_SIZE = 4
"""rich's Syntax default."""


@lru_cache(maxsize=128)
def _lexer(language: str) -> Lexer:
    """Pygments' lexer for a fence's language, made once per language (rich looks it up by
    name on each render: a tenth of a code block's time); plain text for one it does not know."""
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=TAB_SIZE)


def _code(
    code: str, language: str, theme: str, background: str, top: bool = True, bottom: bool = True,
) -> Syntax:
    """Code as a fenced block draws it: wrapped rather than cut, on the code background, with
    a padding row above and below (an open block drawn in pieces leaves some out)."""
    return Syntax(
        code, _lexer(language), theme=theme, word_wrap=True, tab_size=TAB_SIZE,
        padding=(int(top), 2, int(bottom), 2), background_color=background,
    )


class _FencedCode(CodeBlock):
    background = "default"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield _code(str(self.text).rstrip(), self.lexer_name, self.theme, self.background)


def _color(variables: Mapping[str, str], name: str, fallback: str = "") -> Color | None:
    value = variables.get(name) or fallback
    try:
        color = Color.parse(value)
    except Exception:  # an ansi_* name, "transparent", a theme's typo: no colour is fine
        return None
    return None if color.a == 0 else color


def _style(color: Color | None, text_style: str = "", background: Color | None = None) -> Style:
    try:
        style = Style.parse(text_style) if text_style and text_style != "none" else Style()
    except Exception:
        style = Style()
    return style + Style(
        color=color.rich_color if color else None,
        bgcolor=background.rich_color if background else None,
    )


class _ParsedMarkdown(Markdown):
    """rich's Markdown with the parser built once (rich builds one per document: 0.4 ms)."""

    def __init__(self, markup: str, code_theme: str) -> None:
        self.markup, self.parsed = markup, PARSER.parse(markup)
        self.code_theme = self.inline_code_theme = code_theme
        self.justify, self.style, self.hyperlinks = None, "none", False
        self.inline_code_lexer = None


class MarkdownRenderer:
    """Renders Markdown blocks to lines with the colours of one Textual theme."""

    def __init__(self, variables: Mapping[str, str], dark: bool = True) -> None:
        default = "#000000" if dark else "#ffffff"
        background = _color(variables, "background") or Color.parse(default)
        shade = Color.parse("black" if dark else "white")
        self.code_background = background.blend(shade, 0.1 if dark else 0.3)
        self.code_theme = "monokai" if dark else "friendly"
        warning, error = _color(variables, "warning"), _color(variables, "error")
        inline = warning if dark else error
        styles = {
            f"markdown.h{n}": _style(
                _color(variables, f"markdown-h{n}-color", variables.get("primary", "")),
                variables.get(f"markdown-h{n}-text-style", "bold"),
            )
            for n in range(1, 7)
        }
        styles["markdown.code"] = _style(
            inline, background=background.blend(inline, 0.1) if inline else None
        )
        accent = _color(variables, "accent") or _color(variables, "primary")
        styles["markdown.link"] = _style(accent, "underline")
        styles["markdown.link_url"] = _style(_color(variables, "text-muted"))
        styles["markdown.block_quote"] = _style(_color(variables, "text-muted"), "italic")
        styles["markdown.item.number"] = styles["markdown.item.bullet"] = _style(
            _color(variables, "primary"), "bold"
        )
        styles["markdown.table.border"] = _style(_color(variables, "primary"))
        styles["markdown.table.header"] = _style(None, "bold")
        styles["markdown.hr"] = _style(_color(variables, "text-muted"))
        self._theme = Theme(styles)
        self._local = threading.local()
        code = type("ThemedCode", (_FencedCode,), {"background": self.code_background.hex})
        self._markdown = type(
            "ThemedMarkdown", (_ParsedMarkdown,),
            {"elements": {**Markdown.elements, "heading_open": _LeftHeading, "fence": code,
                          "code_block": code}},
        )

    def _console(self) -> Console:
        """This thread's Console (one per render made ~2,000 cyclic-garbage Consoles per long
        answer, and the collector paused the UI for 200-300 ms to free them)."""
        console = getattr(self._local, "console", None)
        if console is None:
            console = self._local.console = Console(
                theme=self._theme, file=io.StringIO(), color_system="truecolor",
                force_terminal=True, legacy_windows=False, highlight=False, emoji=False,
            )
        return console

    def _segments(self, renderable: RenderableType, width: int) -> list[list[Segment]]:
        console = self._console()
        options = console.options.update_width(width)
        return console.render_lines(renderable, options, pad=False, new_lines=False)

    def render_code(
        self, code: str, language: str, width: int, *, top: bool, bottom: bool,
    ) -> list[Line]:
        """Lines of code as a fenced block draws them, with or without its padding rows."""
        syntax = _code(code, language, self.code_theme, self.code_background.hex, top, bottom)
        return [_pack(line) for line in self._segments(syntax, width)]

    def render(self, source: str, width: int) -> list[Line]:
        """`source` laid out in `width` cells, without blank lines around it."""
        if width <= 0 or not source.strip():
            return []
        lines = self._segments(self._markdown(source, self.code_theme), width)
        start, end = 0, len(lines)
        while start < end and _is_blank(lines[start]):
            start += 1
        while end > start and _is_blank(lines[end - 1]):
            end -= 1
        return [_pack(line) for line in lines[start:end]]


def _is_blank(segments: list[Segment]) -> bool:
    """Nothing to see: no text and no background (a code block's padding row is not blank)."""
    return all(
        not segment.text.strip() and not (segment.style and segment.style.bgcolor)
        for segment in segments
    )
