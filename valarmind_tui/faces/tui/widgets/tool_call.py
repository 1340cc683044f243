"""One tool call in the conversation: name, arguments in one line, state, folded result."""

from __future__ import annotations

import json
import re
from typing import Any

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from valarmind_tui.faces.tui.widgets.diff import diff_content

PREVIEW_LINES = 12
ARGS_WIDTH = 100
STATES = ("running", "done", "failed", "denied", "cancelled")
_FROM_STATUS = {"ok": "done", "error": "failed", "denied": "denied", "cancelled": "cancelled",
                "timeout": "cancelled"}
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


_SUMMARY = re.compile(r'"summary":\s*"((?:[^"\\]|\\.)*)')
"""A `"summary": "…"` field, even in JSON cut short (its closing quote may be gone)."""


def _json_values(output: str) -> list[Any]:
    """Every JSON value in `output` (a delegation of several agents joins theirs by blank
    lines), or [] when it is not only JSON."""
    decoder, values, index = json.JSONDecoder(), [], 0
    while index < len(output):
        if output[index].isspace():
            index += 1
            continue
        try:
            value, index = decoder.raw_decode(output, index)
        except ValueError:
            return []
        values.append(value)
    return values


def _result_summary(value: Any) -> str:
    """The line a specialist's result (delegate.py's JSON) is known by."""
    if not isinstance(value, dict):
        return ""
    result = value.get("result")
    for found in (result.get("summary") if isinstance(result, dict) else None,
                  value.get("summary"), value.get("problem")):
        if isinstance(found, str) and found.strip():
            return found.strip()
    return ""


def _meaningful_line(text: str) -> str:
    """The first line with a letter or digit in it (not a lone `{` or `[`)."""
    return next((line.strip() for line in text.splitlines()
                 if any(c.isalnum() for c in line)), "")


def result_title(output: str) -> str:
    """One line for a folded result: a JSON result's summary (several: `agent: summary` each),
    else the first meaningful line."""
    if output.lstrip().startswith(("{", "[")):
        values = _json_values(output)
        summaries = [_result_summary(v) for v in values]
        if len(values) == 1 and summaries[0]:
            return _meaningful_line(summaries[0])
        if values and all(summaries):
            return " · ".join(f"{v.get('agent', '?')}: {_meaningful_line(s)}"
                              for v, s in zip(values, summaries, strict=True))
        if not values and (match := _SUMMARY.search(output)):
            try:
                return _meaningful_line(json.loads(f'"{match.group(1)}"'))
            except ValueError:
                return _meaningful_line(match.group(1))
    return _meaningful_line(output)


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
        """What the fold shows: a specialist's summary or the result's first meaningful line,
        or "" without output."""
        title = result_title(self.output or "")
        return title if len(title) <= 60 else title[:59] + "…"

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
