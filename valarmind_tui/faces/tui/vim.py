"""Vim keys for the prompt (config `editor_mode = "vim"`, issue #35): a small engine over a text
and a cursor offset, kept apart from Textual so every command is tested on plain strings.

Insert mode is where the prompt starts (it is a prompt, typed into at once); Esc goes to normal
mode, where Esc again is the app's (it stops the agent). Normal mode: counts; motions h l j k
0 ^ $ w b e W B E gg G f t F T (and ; ,); operators d c y on any motion, doubled for lines (dd cc
yy), D C x X s S r p P J ~; i a I A o O enter insert mode; u and Ctrl+R undo and redo; `.`
repeats the last change with the text it inserted. Enter sends the prompt in either mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["insert", "normal"]
_WORD = re.compile(r"\w+|[^\w\s]+")
_BIG_WORD = re.compile(r"\S+")
_LINEWISE = set("jkG") | {"gg"}
_INCLUSIVE = set(["e", "E", "$", "f", "t"])
_COMMAND = re.compile(
    r"^(?P<count>[1-9]\d*)?(?:(?P<op>[dcy])(?P<count2>[1-9]\d*)?(?P<target>[dcy]|"
    r"[hljk0^$wbeWBEG;,]|gg|[fFtT].)|(?P<motion>[hljk^$wbeWBEG;,]|0|gg|[fFtT].)|"
    r"(?P<simple>[xXDCsSpPJ~uiaIAoO.]|r.))$")


@dataclass
class Outcome:
    """What a key did: the new text and cursor, or an action for the widget."""

    text: str
    cursor: int
    undo: bool = False
    redo: bool = False


@dataclass
class VimKeys:
    mode: Mode = "insert"
    pending: str = ""
    register: str = ""
    """What d, c, y, x last took (p puts it); `linewise` says whether it is whole lines."""
    linewise: bool = False
    last_change: list[str] = field(default_factory=list)
    _change: list[str] | None = None
    _find: str = ""
    _replaying: bool = False

    # -- entry --------------------------------------------------------------------------------
    def key(self, key: str, text: str, cursor: int) -> Outcome | None:
        """Handle one key (`key` is the character typed, or a key name: escape, backspace...);
        None when it is not the engine's (the widget and the app handle it as usual)."""
        if self.mode == "insert":
            if key != "escape":
                if self._change is not None and not self._replaying:
                    self._change.append(key)
                return None  # typed as usual by the text area
            self.mode = "normal"
            if self._change is not None and not self._replaying:
                self._change.append("escape")
                self.last_change, self._change = self._change, None
            return Outcome(text, _clamp(text, max(cursor - 1, _line_start(text, cursor))))
        if key == "escape":
            if self.pending:
                self.pending = ""
                return Outcome(text, cursor)
            return None  # the app's: stop the agent
        if key == "ctrl+r":
            return Outcome(text, cursor, redo=True)
        if len(key) != 1:
            return None  # enter, arrows, ctrl keys: as usual
        self.pending += key
        command = _COMMAND.match(self.pending)
        if command is None:
            if not _could_grow(self.pending):
                self.pending = ""
            return Outcome(text, cursor)
        keys, self.pending = self.pending, ""
        return self._run(command, keys, text, cursor)

    # -- commands -----------------------------------------------------------------------------
    def _run(self, command: re.Match[str], keys: str, text: str, cursor: int) -> Outcome:
        count = int(command["count"] or 1)
        if command["motion"]:
            target = self._motion(command["motion"], count, text, cursor)
            return Outcome(text, _clamp(text, target))
        if command["op"]:
            count *= int(command["count2"] or 1)
            self._start_change(keys)
            return self._operate(command["op"], command["target"], count, text, cursor)
        simple = command["simple"]
        if simple == ".":
            return self._repeat(count, text, cursor)
        if simple == "u":
            return Outcome(text, cursor, undo=True)
        if simple not in "p P":
            self._start_change(keys)
        return self._simple(simple, count, text, cursor)

    def _start_change(self, keys: str) -> None:
        if not self._replaying:
            self._change = list(keys)

    def _finish_change(self) -> None:
        if self._change is not None and not self._replaying:
            self.last_change, self._change = self._change, None

    def _repeat(self, count: int, text: str, cursor: int) -> Outcome:
        outcome = Outcome(text, cursor)
        if not self.last_change:
            return outcome
        keys = list(self.last_change)
        self._replaying = True
        try:
            for _ in range(count):
                for key in keys:
                    step = self.key(key, outcome.text, outcome.cursor)
                    if step is None:  # typed text in insert mode: the engine inserts it here
                        step = _insert(outcome.text, outcome.cursor, _typed(key))
                    outcome = step
        finally:
            self._replaying = False
        return outcome

    def _simple(self, name: str, count: int, text: str, cursor: int) -> Outcome:
        start, end = _line_start(text, cursor), _line_end(text, cursor)
        if name in "iaIAoO":
            self.mode = "insert"
            at = {"i": cursor, "a": min(cursor + 1, end), "I": _first_non_blank(text, start),
                  "A": end}.get(name)
            if at is not None:
                return Outcome(text, at)
            if name == "o":
                return Outcome(text[:end] + "\n" + text[end:], end + 1)
            return Outcome(text[:start] + "\n" + text[start:], start)
        if name in "xs":
            stop = min(cursor + count, end)
            outcome = self._take(text, cursor, stop, linewise=False, keep=False)
            if name == "s":
                self.mode = "insert"
                return outcome
            self._finish_change()
            return Outcome(outcome.text, _clamp(outcome.text, outcome.cursor))
        if name == "X":
            begin = max(start, cursor - count)
            outcome = self._take(text, begin, cursor, linewise=False, keep=False)
            self._finish_change()
            return outcome
        if name in "DC":
            outcome = self._take(text, cursor, end, linewise=False, keep=False)
            if name == "C":
                self.mode = "insert"
                return outcome
            self._finish_change()
            return Outcome(outcome.text, _clamp(outcome.text, outcome.cursor))
        if name == "S":
            outcome = self._take(text, start, end, linewise=False, keep=False)
            self.mode = "insert"
            return outcome
        if name.startswith("r"):
            self._finish_change()
            if cursor + count > end:
                return Outcome(text, cursor)
            replaced = text[:cursor] + name[1] * count + text[cursor + count:]
            return Outcome(replaced, cursor + count - 1)
        if name == "~":
            self._finish_change()
            stop = min(cursor + count, end)
            return Outcome(text[:cursor] + text[cursor:stop].swapcase() + text[stop:],
                           _clamp(text, stop))
        if name == "J":
            self._finish_change()
            joined, space = text, cursor
            for _ in range(max(count - 1, 1)):
                line_end = _line_end(joined, cursor)
                if line_end >= len(joined):
                    break
                head = joined[:line_end].rstrip(" \t")
                joined, space = head + " " + joined[line_end + 1:].lstrip(" \t"), len(head)
            return Outcome(joined, _clamp(joined, space))
        return self._put(name == "P", count, text, cursor)

    def _put(self, before: bool, count: int, text: str, cursor: int) -> Outcome:
        if not self.register:
            return Outcome(text, cursor)
        content = self.register * count
        if self.linewise:
            if before:
                at = _line_start(text, cursor)
                return Outcome(text[:at] + content + text[at:], at)
            at = _line_end(text, cursor)
            block = "\n" + content.rstrip("\n")
            return Outcome(text[:at] + block + text[at:], at + 1)
        at = cursor if before or not text else min(cursor + 1, len(text))
        return Outcome(text[:at] + content + text[at:], at + len(content) - 1)

    def _operate(self, op: str, target: str, count: int, text: str, cursor: int) -> Outcome:
        if target == op or target in _LINEWISE:
            if target == op:
                first = _line_start(text, cursor)
                last = cursor
                for _ in range(count - 1):
                    nxt = _line_end(text, last) + 1
                    if nxt > len(text):
                        break
                    last = nxt
            else:
                moved = self._motion(target, count, text, cursor)
                first = _line_start(text, min(cursor, moved))
                last = max(cursor, moved)
            stop = _line_end(text, last)
            return self._lines(op, text, first, stop, cursor)
        moved = self._motion("e" if op == "c" and target == "w" else
                             "E" if op == "c" and target == "W" else target, count, text, cursor)
        inclusive = target[0] in _INCLUSIVE or (op == "c" and target in "wW")
        begin, stop = min(cursor, moved), max(cursor, moved) + (1 if inclusive else 0)
        stop = min(stop, len(text))
        if target in "wW" and op != "c":
            stop = min(stop, _line_end(text, cursor)) if moved > _line_end(text, cursor) else stop
        outcome = self._take(text, begin, stop, linewise=False, keep=op == "y")
        if op == "c":
            self.mode = "insert"
            return outcome
        self._finish_change()
        if op == "y":
            return Outcome(text, begin)
        return Outcome(outcome.text, _clamp(outcome.text, outcome.cursor))

    def _lines(self, op: str, text: str, first: int, stop: int, cursor: int) -> Outcome:
        self.register, self.linewise = text[first:stop] + "\n", True
        if op == "y":
            self._finish_change()
            return Outcome(text, cursor)
        if op == "c":
            self.mode = "insert"
            return Outcome(text[:first] + text[stop:], first)
        self._finish_change()
        if stop < len(text):
            rest = text[:first] + text[stop + 1:]
        else:
            rest = text[:max(first - 1, 0)]
            first = _line_start(rest, len(rest))
        return Outcome(rest, _clamp(rest, _first_non_blank(rest, min(first, len(rest)))))

    def _take(self, text: str, begin: int, stop: int, *, linewise: bool, keep: bool) -> Outcome:
        self.register, self.linewise = text[begin:stop], linewise
        return Outcome(text if keep else text[:begin] + text[stop:], begin)

    # -- motions ------------------------------------------------------------------------------
    def _motion(self, motion: str, count: int, text: str, cursor: int) -> int:
        start, end = _line_start(text, cursor), _line_end(text, cursor)
        if motion == "h":
            return max(start, cursor - count)
        if motion == "l":
            return min(max(end - 1, start), cursor + count)
        if motion == "0":
            return start
        if motion == "^":
            return _first_non_blank(text, start)
        if motion == "$":
            return max(end - 1, start)
        if motion in "jk":
            return _vertical(text, cursor, count if motion == "j" else -count)
        if motion == "gg":
            return 0
        if motion == "G":
            return _line_start(text, len(text))
        if motion in "wWbBeE":
            pattern = _WORD if motion.islower() else _BIG_WORD
            at = cursor
            for _ in range(count):
                at = _word_motion(pattern, motion.lower(), text, at)
            return at
        if motion in ";,":
            if not self._find:
                return cursor
            kind = self._find[0]
            if motion == ",":
                kind = kind.swapcase()
            return _find(kind, self._find[1], count, text, cursor, repeat=True)
        self._find = motion
        return _find(motion[0], motion[1], count, text, cursor)


# -- text helpers -----------------------------------------------------------------------------
def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _first_non_blank(text: str, start: int) -> int:
    at = start
    end = _line_end(text, start)
    while at < end and text[at] in " \t":
        at += 1
    return at


def _clamp(text: str, at: int) -> int:
    """Normal mode's cursor sits on a character of its line, never past its end."""
    at = max(0, min(at, len(text)))
    start, end = _line_start(text, at), _line_end(text, at)
    return min(at, max(end - 1, start))


def _vertical(text: str, cursor: int, lines: int) -> int:
    column = cursor - _line_start(text, cursor)
    at = _line_start(text, cursor)
    for _ in range(abs(lines)):
        if lines > 0:
            nxt = _line_end(text, at) + 1
            if nxt > len(text):
                break
            at = nxt
        else:
            if at == 0:
                break
            at = _line_start(text, at - 1)
    return min(at + column, max(_line_end(text, at) - 1, at))


def _word_motion(pattern: re.Pattern[str], kind: str, text: str, at: int) -> int:
    words = [(m.start(), m.end()) for m in pattern.finditer(text)]
    if kind == "w":
        return next((s for s, _ in words if s > at), len(text))
    if kind == "e":
        return next((e - 1 for s, e in words if e - 1 > at), max(len(text) - 1, 0))
    return next((s for s, _ in reversed(words) if s < at), 0)


def _find(kind: str, char: str, count: int, text: str, cursor: int, repeat: bool = False) -> int:
    start, end = _line_start(text, cursor), _line_end(text, cursor)
    at = cursor
    for _ in range(count):
        if kind in "ft":
            begin = at + (2 if kind == "t" and repeat else 1)
            found = text.find(char, begin, end)
        else:
            stop = at - (1 if kind == "T" and repeat else 0)
            found = text.rfind(char, start, max(stop, start))
        if found < 0:
            return cursor
        at = found
    if kind == "t":
        return at - 1
    if kind == "T":
        return at + 1
    return at


def _could_grow(pending: str) -> bool:
    """`pending` is the start of a command still being typed (a count, an operator, g, f)."""
    return bool(re.fullmatch(r"[1-9]\d*|(?:[1-9]\d*)?(?:[dcy](?:[1-9]\d*)?)?(?:g|[fFtTr])?",
                             pending))


def _typed(key: str) -> str:
    return {"enter": "\n", "tab": "\t", "space": " "}.get(key, key)


def _insert(text: str, cursor: int, typed: str) -> Outcome:
    if typed == "backspace":
        if cursor == 0:
            return Outcome(text, cursor)
        return Outcome(text[:cursor - 1] + text[cursor:], cursor - 1)
    if len(typed) != 1 and typed != "\n":
        return Outcome(text, cursor)
    return Outcome(text[:cursor] + typed + text[cursor:], cursor + len(typed))

