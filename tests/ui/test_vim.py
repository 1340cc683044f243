"""Vim keys in the prompt (issue #35): the engine on plain strings, then the prompt itself."""

from __future__ import annotations

import pytest

from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui.vim import VimKeys
from valarmind_tui.faces.tui.widgets.prompt import PromptInput


def _normal(text: str, cursor: int, keys: list[str]) -> tuple[str, int, VimKeys]:
    vim = VimKeys()
    vim.key("escape", text, cursor + 1)  # insert → normal: the cursor steps back, as in vim
    for key in keys:
        outcome = vim.key(key, text, cursor)
        if outcome is None:  # insert mode types it
            text, cursor = text[:cursor] + key + text[cursor:], cursor + 1
        else:
            text, cursor = outcome.text, outcome.cursor
    return text, cursor, vim


@pytest.mark.parametrize(("text", "cursor", "keys", "after", "at"), [
    ("one two three", 0, ["w"], "one two three", 4),
    ("one two three", 0, ["2", "w"], "one two three", 8),
    ("one two three", 12, ["b"], "one two three", 8),
    ("one two three", 0, ["e"], "one two three", 2),
    ("one two three", 5, ["$"], "one two three", 12),
    ("  indented", 9, ["^"], "  indented", 2),
    ("one two three", 0, ["d", "w"], "two three", 0),
    ("one two three", 0, ["d", "2", "w"], "three", 0),
    ("one two three", 4, ["D"], "one ", 3),
    ("one two three", 4, ["x"], "one wo three", 4),
    ("one two three", 4, ["3", "x"], "one  three", 4),
    ("one two three", 0, ["c", "w", "O", "N", "E", "escape"], "ONE two three", 2),
    ("a\nb\nc", 2, ["d", "d"], "a\nc", 2),
    ("a\nb\nc", 0, ["2", "d", "d"], "c", 0),
    ("a\nb\nc", 0, ["j"], "a\nb\nc", 2),
    ("a\nb\nc", 4, ["g", "g"], "a\nb\nc", 0),
    ("a\nb\nc", 0, ["G"], "a\nb\nc", 4),
    ("a\nb\nc", 0, ["y", "y", "p"], "a\na\nb\nc", 2),
    ("one two", 0, ["d", "w", "P"], "one two", 3),
    ("key = value", 0, ["f", "="], "key = value", 4),
    ("key = value", 0, ["d", "t", "="], "= value", 0),
    ("key = value", 0, ["r", "K"], "Key = value", 0),
    ("abc", 0, ["~", "~"], "ABc", 2),
    ("one\ntwo", 0, ["J"], "one two", 3),
    ("abc", 1, ["A", "!", "escape"], "abc!", 3),
    ("abc", 1, ["o", "x", "escape"], "abc\nx", 4),
])
def test_normal_mode_commands(text: str, cursor: int, keys: list[str], after: str,
                              at: int) -> None:
    got, moved, _vim = _normal(text, cursor, keys)
    assert (got, moved) == (after, at)


def test_dot_repeats_the_last_change_with_its_text() -> None:
    text, cursor, vim = _normal("aa bb cc dd", 0, ["c", "w", "X", "escape", "w"])
    assert (text, cursor) == ("X bb cc dd", 2)
    outcome = vim.key(".", text, cursor)
    assert outcome is not None and outcome.text == "X X cc dd"
    text, cursor, vim = _normal("1 2 3 4 5", 0, ["d", "w"])
    outcome = vim.key("2", text, cursor)
    outcome = vim.key(".", text, cursor)
    assert outcome is not None and outcome.text == "4 5"


def test_escape_in_normal_mode_is_the_apps() -> None:
    vim = VimKeys()
    assert vim.key("escape", "x", 1) is not None and vim.mode == "normal"
    assert vim.key("escape", "x", 0) is None  # stops the agent, as without vim keys
    assert vim.key("u", "x", 0).undo  # type: ignore[union-attr]


async def test_the_prompt_edits_with_vim_keys_and_shows_its_mode(make_session, make_app,
                                                                 fake_model) -> None:  # noqa: ANN001
    app = make_app(make_session(editor_mode="vim"))
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        await wait_for(pilot, lambda: prompt.vim is not None)
        assert prompt.border_title == "-- INSERT --"
        await pilot.press(*"fix the bug in app.py")
        await pilot.press("escape")
        assert prompt.border_title == "-- NORMAL --"
        await pilot.press("0", "w", "c", "w", *"typo", "escape")
        assert prompt.text == "fix typo bug in app.py"
        await pilot.press("w", ".")
        assert prompt.text == "fix typo typo in app.py"
        await pilot.press("u")
        assert prompt.text == "fix typo bug in app.py"
        await pilot.press("d", "d")
        assert prompt.text == ""
        await pilot.press("i", *"hello", "escape", "A", *" world", "escape")
        assert prompt.text == "hello world"
        assert prompt.border_title == "-- NORMAL --"
