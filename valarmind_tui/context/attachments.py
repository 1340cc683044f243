"""How a prompt carries the files its @mentions attached: written by the faces, read back when
a stored conversation is shown again."""

from __future__ import annotations

import re
from pathlib import Path

from valarmind_tui.core.errors import UsageError
from valarmind_tui.safety.content import not_regular_reason, read_regular_bytes
from valarmind_tui.safety.paths import resolve_in_project

MAX_ATTACH_BYTES = 200_000
HEADER = "\n\nAttached files:\n"
"""Separates a prompt from the files it attached."""
_PATH = re.compile(r'^<file path="([^"]*)">$', re.MULTILINE)


def with_attachments(text: str, files: dict[str, str]) -> str:
    """The prompt followed by each attached file's content."""
    if not files:
        return text
    blocks = [f'<file path="{path}">\n{content}\n</file>' for path, content in files.items()]
    return text + HEADER + "\n".join(blocks)


def split_attachments(content: str) -> tuple[str, tuple[str, ...]]:
    """(what the person typed, the paths of the files attached to it)."""
    text, _, files = content.partition(HEADER)
    return text, tuple(_PATH.findall(files))


def read_attachment(project_root: Path, path: str) -> str:
    """The text of a project file for an `@path` mention (checked like any tool path)."""
    resolved = resolve_in_project(project_root, path)
    if not resolved.is_file():
        raise UsageError(not_regular_reason(resolved, path) or f"{path}: not a file")
    data = read_regular_bytes(resolved, path, MAX_ATTACH_BYTES)
    if b"\0" in data[:8192]:
        raise UsageError(f"{path}: binary file, not attached")
    return data.decode("utf-8", errors="replace")
