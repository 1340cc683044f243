"""visible_text: every character a terminal would act on or hide is shown, once, readably."""

from __future__ import annotations

from valarmind_tui.core.events import TaskItem, TaskListChanged, ToolCallStarted
from valarmind_tui.core.visible_text import approval_warning, unusual, visible
from valarmind_tui.safety.visible_fields import visible_fields


def test_plain_text_is_returned_as_is() -> None:
    text = "def f():\n\treturn 'héllo' + \"😀\"  # 中文 — ok\n"
    assert visible(text) is text and unusual(text) == [] and approval_warning(command=text) == ""


def test_c0_controls_and_del_become_control_pictures() -> None:
    assert visible("a\x1b[2Kb\rc\x07d\x00e\x7f") == "a␛[2Kb␍c␇d␀e␡"
    assert visible("\r\n") == "␍\n"  # a CR is shown even before a newline: exact bytes


def test_c1_bidi_zero_width_and_separators_are_named() -> None:
    shown = visible("\x9b31m\u202eevil\u2066x\u2069\u200b\ufeff\u2028\U000e0041")
    assert shown == ("<U+009B>31m<U+202E>evil<U+2066>x<U+2069><U+200B><U+FEFF><U+2028>"
                     "<U+E0041>")


def test_blank_letters_and_soft_hyphens_are_named() -> None:
    assert visible("ap\xadp.py \u3164 \u115f") == "ap<U+00AD>p.py <U+3164> <U+115F>"


def test_visible_is_idempotent() -> None:
    once = visible("x\x1b]52;c;Zm9v\x07\u202e")
    assert visible(once) == once and unusual(once) == []


def test_unusual_lists_each_kind_once_in_order() -> None:
    assert unusual("rm x #\r\x1b[2K\r\x1b[1A") == ["␍", "␛"]


def test_the_approval_warning_names_the_field_and_the_characters() -> None:
    warning = approval_warning(command="rm -f app.py #\r\x1b[2K  $ ls", path=None, diff="ok")
    assert "this command contains" in warning and "␍, ␛" in warning
    assert "check it before you approve" in warning


def test_visible_fields_reaches_nested_arguments_and_tasks() -> None:
    started = ToolCallStarted(call_id="1", name="bash", arguments={"command": "a\x1bb",
                                                                   "n": [1, "\r"]})
    shown = visible_fields(started)
    assert shown.arguments == {"command": "a␛b", "n": [1, "␍"]} and shown.call_id == "1"
    clean = ToolCallStarted(call_id="1", name="bash", arguments={"command": "ls"})
    assert visible_fields(clean) is clean
    tasks = TaskListChanged(tasks=(TaskItem(id="1", title="\u202eevil", status="pending"),))
    assert visible_fields(tasks).tasks[0].title == "<U+202E>evil"
