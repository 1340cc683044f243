"""One tool call in the conversation: name, arguments in one line, state, folded result."""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from valarmind_tui.ui.widgets.diff import diff_content

PREVIEW_LINES = 12
ARGS_WIDTH = 100
STATES = ("running", "done", "failed", "denied", "cancelled")
_FROM_STATUS = {"ok": "done", "error": "failed", "denied": "denied", "cancelled": "cancelled"}
_STATE_STYLE = {
    "running": "$accent", "done": "$success", "failed": "$error", "denied": "$warning",
    "cancelled": "$text-muted",
}


def one_line_arguments(arguments: dict[str, Any], width: int = ARGS_WIDTH) -> str:
    """`key=value` pairs on one line, long values shortened, the whole cut at `width`."""
    parts = []
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        text = " ".join(str(text).split())
        if len(text) > 40:
            text = text[:39] + "…"
        parts.append(f"{key}={json.dumps(text, ensure_ascii=False) if ' ' in text else text}")
    line = " ".join(parts)
    return line if len(line) <= width else line[: width - 1] + "…"


def result_preview(output: str, lines: int = PREVIEW_LINES) -> str:
    rows = output.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return "\n".join(rows)
    return "\n".join(rows[:lines]) + f"\n… {len(rows) - lines} more lines"


class ToolCallBlock(Static):
    """Appears on ToolCallStarted; `finish` fills in the outcome. One widget, not a tree: a
    long session holds hundreds of these, and Textual lays out every widget of the chat again
    on each frame. A click folds or unfolds the result preview."""

    DEFAULT_CSS = """
    ToolCallBlock {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: thick $accent;
        background: $boost;
    }
    ToolCallBlock.-done { border-left: thick $success; }
    ToolCallBlock.-failed { border-left: thick $error; }
    ToolCallBlock.-denied { border-left: thick $warning; }
    ToolCallBlock.-cancelled { border-left: thick $panel; }
    """

    state: reactive[str] = reactive("running")
    expanded: reactive[bool] = reactive(False, layout=True)
    """Whether the result preview is unfolded."""

    def __init__(
        self, call_id: str, name: str, arguments: dict[str, Any], agent_id: str = "main"
    ) -> None:
        super().__init__(classes="-running")
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.agent_id = agent_id
        self.output: str | None = None
        self.diff: str | None = None

    @property
    def header(self) -> Content:
        who = f"{self.agent_id} · " if self.agent_id != "main" else ""
        return Content.assemble(
            ("⏺ ", _STATE_STYLE[self.state]),
            (f"{who}{self.tool_name}", "bold"),
            " ",
            (one_line_arguments(self.arguments), "$text-muted"),
            "  ",
            (self.state, _STATE_STYLE[self.state]),
        )

    @property
    def result_title(self) -> str:
        """The result's first line (what the fold shows), or "" without output."""
        lines = (self.output or "").strip().splitlines()
        if not lines:
            return ""
        return lines[0] if len(lines[0]) <= 60 else lines[0][:59] + "…"

    def render(self) -> Content:
        parts: list[Content | tuple[str, str] | str] = [self.header]
        if self.diff:
            parts += ["\n", diff_content(self.diff)]
        if title := self.result_title:
            parts += ["\n", ("▼ " if self.expanded else "▶ ") + title]
            if self.expanded:
                parts += ["\n", (result_preview(self.output or ""), "$text-muted")]
        return Content.assemble(*parts)

    def watch_state(self, old: str, new: str) -> None:
        self.remove_class(f"-{old}")
        self.add_class(f"-{new}")

    def on_click(self) -> None:
        if self.result_title:
            self.expanded = not self.expanded

    async def finish(self, status: str, output: str, diff: str | None = None) -> None:
        """Record the outcome: state, a diff (shown) and a folded output preview."""
        self.output, self.diff = output, diff
        self.state = _FROM_STATUS.get(status, "failed")
        self.refresh(layout=True)
