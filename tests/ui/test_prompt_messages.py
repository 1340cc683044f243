"""A keystroke's messages stay in the prompt: its Changed and SelectionChanged went up the
prompt bar, the screen and the app (six message hops) before the echo could be drawn."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import TextArea

from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.history import PromptHistory
from valarmind_tui.faces.tui.widgets.prompt import Completion, PromptBar, PromptInput


class Bar(App[None]):
    def __init__(self, history: Path) -> None:
        super().__init__()
        self.history = history
        self.heard: list[str] = []

    def compose(self) -> ComposeResult:
        yield PromptBar(PromptHistory(self.history),
                        completer=lambda before: [Completion("/help", "Help.", 0)]
                        if before.startswith("/") else [])

    def on_text_area_changed(self, _event: TextArea.Changed) -> None:
        self.heard.append("changed")

    def on_text_area_selection_changed(self, _event: TextArea.SelectionChanged) -> None:
        self.heard.append("selection")


async def test_typing_offers_completions_and_tells_nothing_above_the_prompt(
    tmp_path: Path,
) -> None:
    app = Bar(tmp_path / "history.jsonl")
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.press("/", "h")
        prompt = app.query_one(PromptInput)
        await wait_for(pilot, lambda: prompt.completing)
        assert prompt.text == "/h"
        await pilot.press("backspace", "backspace", "a")
        await wait_for(pilot, lambda: not prompt.completing and prompt.text == "a")
        assert app.heard == []
