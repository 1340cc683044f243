"""A unified diff coloured by line kind, with colours from the theme."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from valarmind_tui.core.visible_text import visible

MAX_DIFF_LINES = 400


def diff_content(diff: str, max_lines: int = MAX_DIFF_LINES) -> Content:
    """Content with added, removed and hunk lines styled by theme variables."""
    lines = visible(diff).rstrip("\n").split("\n")
    parts: list[Content | tuple[str, str] | str] = []
    for index, line in enumerate(lines[:max_lines]):
        if index:
            parts.append("\n")
        if line.startswith(("+++", "---")):
            parts.append((line, "bold"))
        elif line.startswith("+"):
            parts.append((line, "$diff-added"))
        elif line.startswith("-"):
            parts.append((line, "$diff-removed"))
        elif line.startswith("@@"):
            parts.append((line, "$diff-hunk"))
        else:
            parts.append(line)
    if len(lines) > max_lines:
        parts.append((f"\n… {len(lines) - max_lines} more lines", "$text-muted italic"))
    return Content.assemble(*parts)


class DiffView(Static):
    """Shows one unified diff."""

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        padding: 0 1;
        height: auto;
    }
    """

    def __init__(self, diff: str, **kwargs: object) -> None:
        # why the ignore below: Textual's typed keywords; ours pass through
        super().__init__(diff_content(diff), **kwargs)  # type: ignore[arg-type]  # why: above
        self.diff = diff
