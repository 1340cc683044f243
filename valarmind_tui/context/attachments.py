"""How a prompt carries the files its @mentions attached: written by the faces, read back when
a stored conversation is shown again."""

from __future__ import annotations

import re

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
