"""The prompt: multi-line input, history, and completion of /commands and @paths."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Offset, Region
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.strip import Strip
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Document, Selection, TextAreaTheme

from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui.history import PromptHistory
from valarmind_tui.faces.tui.vim import VimKeys


@dataclass(frozen=True)
class Completion:
    """Replace the text before the cursor from `start` (a column on the cursor's line)."""

    value: str
    help: str
    start: int


Completer = Callable[[str], list[Completion]]
"""Given the cursor line's text before the cursor, the completions to offer."""


class PromptInput(TextArea):
    """Enter sends; Shift+Enter or Ctrl+J add a line; Up/Down walk history or completions."""

    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 10; border: tall $primary 50%; }
    PromptInput:focus { border: tall $primary; }
    """

    selection: Reactive[Selection] = reactive(
        Selection(), init=False, always_update=True, repaint=False)
    """TextArea's, but a change repaints the text's rows only (`_watch_selection`): TextArea's
    repainted the whole widget, border rows too, for each key."""

    class Submitted(Message):
        """The person sent `text`."""

        def __init__(self, prompt_input: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt_input = prompt_input
            self.text = text

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    def __init__(self, history: PromptHistory, **kwargs: object) -> None:
        # why the ignore below: Textual's typed keywords; ours pass through
        super().__init__(soft_wrap=True, show_line_numbers=False, **kwargs)  # type: ignore[arg-type]  # why: above
        self.prompt_history = history
        self.completer: Completer | None = None
        self.completions: OptionList | None = None
        self._offered: list[Completion] = []
        self._offered_for: str | None = None
        """The text before the cursor the offer was made for: keys typed fast or pasted arrive
        before the offer is refreshed, so an older offer must never replace newer text."""
        self._choosing = False
        """The person moved through the offer with the arrow keys since it was made."""
        self.vim: VimKeys | None = None
        """Vim keys (config editor_mode = "vim"), set once the session's settings are known."""
        self._theme_styled: TextAreaTheme | None = None
        """The theme object whose colours were last taken from the CSS (render_lines)."""
        self.disable_messages(TextArea.SelectionChanged)  # no one reads it: one hop less a key
        self.on_first_input: Callable[[], None] | None = None
        """Called once, at the first key or paste the prompt takes (then dropped)."""

    def use_vim(self, on: bool) -> None:
        self.vim = VimKeys() if on else None
        self._show_mode()

    def _show_mode(self) -> None:
        if self.vim is None:
            self.border_title = None
        else:
            self.border_title = "-- INSERT --" if self.vim.mode == "insert" else "-- NORMAL --"

    # -- rendering ----------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        self._theme_styled = None
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        """TextArea takes its theme's colours from the CSS on each render (~0.1-0.3 ms, most of
        it the widget's style walked up its ancestors): here once per theme object and CSS
        update (a theme switch replaces the object and updates the CSS; focus updates it)."""
        theme = self._theme
        if theme is not None and theme is not self._theme_styled:
            theme.apply_css(self)
            self._theme_styled = theme
        return super(TextArea, self).render_lines(crop)  # past TextArea's, which applies it again

    def _watch_selection(self, previous_selection: Selection, selection: Selection) -> None:
        super()._watch_selection(previous_selection, selection)
        self.refresh(self.size.region)  # the content's rows: an edit may move every row below

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> Offset:
        """TextArea's, without its scroll computation (~0.1 ms a key) when the cursor's row is
        in view: soft-wrapped text never scrolls sideways."""
        if center or not self.soft_wrap or not self._has_cursor:
            return super().scroll_cursor_visible(center, animate)
        self._recompute_cursor_offset()
        row = self._cursor_offset[1] - self.scroll_offset.y
        if 0 <= row < self.scrollable_content_region.height:
            return Offset(0, 0)
        return super().scroll_cursor_visible(center, animate)

    # -- completion ---------------------------------------------------------------------------
    def _before_cursor(self) -> str:
        row, col = self.cursor_location
        return self.document.get_line(row)[:col]

    def refresh_completions(self) -> None:
        """Recompute what to offer for the text before the cursor."""
        if self.completions is None:
            return
        before = self._before_cursor()
        found = self.completer(before) if self.completer else []
        offered = [c for c in found if before[c.start:] != c.value][:12]
        self._offered_for = before
        self._choosing = False
        if not offered and not self._offered:
            return  # hidden and staying so: an ordinary key leaves the list alone
        self._offered = offered
        self.completions.clear_options()
        if not self._offered:
            self.completions.display = False
            return
        self.completions.add_options(
            Option(Content.assemble((visible(c.value), "bold"),
                                    ("  " + visible(c.help), "$text-muted")))
            for c in self._offered
        )
        self.completions.highlighted = 0
        self.completions.display = True

    @property
    def completing(self) -> bool:
        return bool(self.completions is not None and self.completions.display and self._offered)

    def accept_completion(self) -> bool:
        """Put the highlighted completion in place of the word being typed (from its start
        to its end, so typed text after the cursor's word stays); False when it changes
        nothing."""
        assert self.completions is not None
        chosen = self._offered[self.completions.highlighted or 0]
        row, col = self.cursor_location
        line = self.document.get_line(row)
        end = col + _word_length(line[col:])
        if line[chosen.start:end] == chosen.value:
            self.hide_completions()
            return False
        self.replace(chosen.value, (row, chosen.start), (row, end))
        if not chosen.value.endswith("/"):
            self.hide_completions()
        return True

    def _offer_is_current(self) -> bool:
        return self._offered_for == self._before_cursor()

    def _complete_on_tab(self) -> None:
        """Complete what is typed now (the offer is made again when keys arrived since)."""
        if not self._offer_is_current():
            self.refresh_completions()
        if self.completing:
            self.accept_completion()

    def hide_completions(self) -> None:
        self._offered = []
        if self.completions is not None:
            self.completions.display = False

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()  # read here only: not passed up the bar, the screen and the app per key
        self.refresh_completions()

    # -- keys ---------------------------------------------------------------------------------
    def _first_input(self) -> None:
        if self.on_first_input is not None:
            first, self.on_first_input = self.on_first_input, None
            first()

    async def _on_paste(self, event: events.Paste) -> None:
        self._first_input()
        await super()._on_paste(event)

    async def _on_key(self, event: events.Key) -> None:
        self._first_input()
        handled = (self._vim_key(event) or self._handle_key(event.key)
                   or not event.is_printable and await self._own_binding(event.key))
        if handled:
            event.stop()
            event.prevent_default()
        elif event.is_printable:
            # Typed text: TextArea's handler inserts it here, and the offer is made at once, not
            # when its Changed message comes back through the queue (one hop less a key).
            with self.prevent(TextArea.Changed):
                await super()._on_key(event)
            event.prevent_default()
            self.refresh_completions()

    async def _own_binding(self, key: str) -> bool:
        """Run the prompt's own binding for `key` (Backspace, the arrows, Home...) now. Left to
        bubble, it ran once the key had gone up to the app, after the letters typed behind it
        in the same burst were inserted: "ab<Backspace>c" gave "ab". The focused widget's
        bindings come first in Textual's chain, so running them here changes no precedence;
        a key bound only further up still bubbles."""
        chain = self.screen._modal_binding_chain  # the focused widget first, the keymap applied
        if not chain or chain[0][0] is not self:
            return False
        for binding in chain[0][1].key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _vim_key(self, event: events.Key) -> bool:
        """The vim engine's, when on: True when it took the key."""
        if self.vim is None or (self.completing and event.key in ("up", "down", "enter")):
            return False
        key = event.character if event.is_printable and event.character else event.key
        outcome = self.vim.key(key, self.text, self._offset())
        self._show_mode()
        if outcome is None:
            return False
        if outcome.undo or outcome.redo:
            self.undo() if outcome.undo else self.redo()
            return True
        self._replace_all(outcome.text)
        self.move_cursor(self._document().get_location_from_index(outcome.cursor))
        return True

    def _document(self) -> Document:
        document = self.document
        assert isinstance(document, Document)  # a plain text area, not a syntax-aware one
        return document

    def _offset(self) -> int:
        return self._document().get_index_from_location(self.cursor_location)

    def _replace_all(self, text: str) -> None:
        """Make the text `text` by replacing only what differs (one undo step)."""
        old = self.text
        if text == old:
            return
        head = 0
        while head < min(len(old), len(text)) and old[head] == text[head]:
            head += 1
        tail = 0
        while (tail < min(len(old), len(text)) - head
               and old[len(old) - 1 - tail] == text[len(text) - 1 - tail]):
            tail += 1
        location = self._document().get_location_from_index
        self.replace(text[head:len(text) - tail], location(head), location(len(old) - tail))

    def _handle_key(self, key: str) -> bool:
        if key == "tab":
            self._complete_on_tab()
            return True  # Tab completes or does nothing: it never takes the focus away
        if self.completing:
            assert self.completions is not None
            if key == "enter" and self._choosing and self._offer_is_current():
                self.accept_completion()
                return True
            if key == "escape":
                self.hide_completions()
                return True
            if key in ("up", "down"):
                getattr(self.completions, f"action_cursor_{key}")()
                self._choosing = True
                return True
        if key == "enter":
            self._submit()
            return True
        if key in ("shift+enter", "ctrl+j"):
            self.insert("\n")
            return True
        if key == "up" and self.cursor_location[0] == 0:
            return self._recall(self.prompt_history.previous(self.text))
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            return self._recall(self.prompt_history.following())
        return False

    def _recall(self, text: str | None) -> bool:
        if text is None:
            return False
        self.load_text(text)
        self.move_cursor(self.document.end)
        self.hide_completions()
        return True

    def _submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        self.prompt_history.add(text)
        self.load_text("")
        self.hide_completions()
        self.post_message(self.Submitted(self, text))


def _word_length(text: str) -> int:
    """How many characters of `text` belong to the word it starts with."""
    for i, ch in enumerate(text):
        if ch.isspace():
            return i
    return len(text)


class PromptBar(Vertical):
    """The completion list above the input."""

    DEFAULT_CSS = """
    PromptBar { height: auto; dock: bottom; }
    PromptBar #completions {
        display: none; height: auto; max-height: 8; border: round $secondary;
        background: $surface;
    }
    """

    def __init__(self, history: PromptHistory, completer: Completer | None = None) -> None:
        super().__init__()
        self._history = history
        self._completer = completer

    def compose(self) -> ComposeResult:
        yield OptionList(id="completions")
        prompt = PromptInput(self._history, id="prompt")
        prompt.completer = self._completer
        yield prompt

    def on_mount(self) -> None:
        prompt = self.query_one(PromptInput)
        prompt.completions = self.query_one("#completions", OptionList)
        prompt.completions.can_focus = False

    @on(OptionList.OptionSelected, "#completions")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        prompt = self.query_one(PromptInput)
        # why the ignore below: the list exists while its events arrive
        prompt.completions.highlighted = event.option_index  # type: ignore[union-attr]  # why: above
        prompt.accept_completion()
        prompt.focus()
