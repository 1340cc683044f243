"""What a tool gives back: its result for the model and the faces, and the preview an approval
shows before it runs. Apart from `base` so that `services` (whose delegator returns a result)
and `base` (whose context holds the services) do not import each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valarmind_tui.media.images import ImageAttachment


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: text for the model, plus structured extras for the faces."""

    output: str
    is_error: bool = False
    diff: str | None = None
    """Unified diff of a file change, for the UI and approvals."""
    data: Any = None
    """Structured result for callers that want more than text (e.g. MCP raw mode)."""
    images: tuple[ImageAttachment, ...] = ()
    """Images for the model (read_file of a picture, an MCP tool's image): a vision model
    sees them after the tool results, any other gets a line saying it cannot."""

    @classmethod
    def error(cls, message: str) -> ToolResult:
        return cls(output=message, is_error=True)


@dataclass(frozen=True)
class Preview:
    """What an approval prompt shows before a risky call runs."""

    summary: str
    diff: str | None = None
    command: str | None = None
    cwd: str | None = None
    paths: tuple[str, ...] = ()
