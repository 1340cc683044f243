"""The conversation left in the terminal when the TUI quits (config `scrollback_on_exit`).

The full-screen view lives on the terminal's alternate screen, which closes at exit and takes the
conversation with it. Printed into the normal screen after it closes, the conversation stays in
the scrollback: a header with the session and how to resume it, what the person asked, the
answers as rendered Markdown, each tool call as one line. Everything is outside text, so it is
made visible (no control character reaches the terminal) and drawn as plain text, never as Rich
markup; links are not emitted as terminal hyperlinks.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from valarmind_tui.safety.visible_fields import visible_fields

if TYPE_CHECKING:
    from valarmind_tui.context.transcript import ToolItem, Transcript

SCROLLBACK_MESSAGES = 400
"""At most this many of the last messages are printed (the header says how many were left)."""
_ARGUMENTS_SHOWN = 80
_STATUS_MARK = {"ok": "✓", "error": "✗", "denied": "⊘", "cancelled": "⏹"}


def print_conversation(transcript: Transcript, session_id: str, out: TextIO) -> None:
    """Write `transcript` to `out` (the terminal, after the alternate screen closed)."""
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.text import Text

    from valarmind_tui.context.transcript import AnswerItem, SummaryItem, ToolItem, UserItem

    console = Console(file=out, highlight=False, emoji=False)
    header = f"ValarMind session {session_id} · {transcript.total} messages"
    if transcript.hidden:
        header += f" ({transcript.hidden} earlier not shown)"
    console.rule(Text(header, style="bold"))
    for item in map(visible_fields, transcript.items):
        match item:
            case UserItem():
                console.print(Text("> ", style="bold cyan") + Text(item.text, style="bold"))
                for name in item.attachments:
                    console.print(Text(f"  @{name}", style="dim"))
            case AnswerItem():
                console.print(Markdown(item.text, hyperlinks=False))
            case ToolItem():
                console.print(Text(_tool_line(item), style="dim"))
            case SummaryItem():
                console.print(Text(item.text, style="dim italic"))
        console.print()
    console.rule(Text(f"resume with: valarmind --resume {session_id}", style="dim"))


def _tool_line(item: ToolItem) -> str:
    arguments = json.dumps(item.arguments, ensure_ascii=False)
    if len(arguments) > _ARGUMENTS_SHOWN:
        arguments = arguments[:_ARGUMENTS_SHOWN - 1] + "…"
    mark = _STATUS_MARK.get(item.status, "?")
    return f"{mark} {item.name} {arguments} · {item.status}"
