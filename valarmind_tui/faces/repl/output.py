"""Where the REPL prints: text made visible (control characters shown, never emitted), lines
kept whole while prompt-toolkit reads a line during a run, and the terminal's own bytes (a bell,
an OSC notification) written as they are."""

from __future__ import annotations

import sys
from typing import TextIO

from valarmind_tui.core.visible_text import visible


class ReplOutput:
    """One stream the REPL writes to."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.at_line_start = True
        self._held: str | None = None
        """The streamed line not printed yet while a line is read during a run (prompt-toolkit
        redraws its prompt over an unfinished line); None when no line is read."""

    def write(self, text: str) -> None:
        if not text:
            return
        self.at_line_start = text.endswith("\n")
        if self._held is not None:  # a line is read meanwhile: whole lines only, above it
            whole, newline, self._held = (self._held + text).rpartition("\n")
            if not newline:
                return
            text = whole + newline
        out = self.out
        if out is sys.__stdout__ and sys.stdout is not out:
            out = sys.stdout  # prompt-toolkit's proxy while a line is read during a run
        out.write(visible(text))
        out.flush()

    def line(self, text: str) -> None:
        """Write `text` on a line of its own."""
        self.write(("" if self.at_line_start else "\n") + text + "\n")

    def hold(self) -> None:
        """A line is read during a run from now on: print whole lines only."""
        if self._held is None:
            self._held = ""

    def release(self) -> None:
        """No line is read any more: the rest of a line held meanwhile is printed."""
        held, self._held = self._held, None
        if held:
            self.out.write(visible(held))
            self.out.flush()

    def terminal(self, data: str) -> None:
        """Bytes for the terminal itself (a bell, an OSC notification), never made visible."""
        self.out.write(data)
        self.out.flush()
