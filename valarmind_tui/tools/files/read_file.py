"""read_file: a text file with line numbers, a range of it for big files; an image as an image
(the agent loop shows it to a vision model and tells any other that it cannot see it)."""

from __future__ import annotations

import asyncio
import io
import mimetypes
from pathlib import Path

from pydantic import Field

from valarmind_tui.core.errors import UsageError
from valarmind_tui.media.images import is_image_path, load_image
from valarmind_tui.media.parts import image_line
from valarmind_tui.safety.content import open_regular
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import (
    BINARY_SNIFF_BYTES,
    BuiltinTool,
    looks_binary,
    rel,
    resolve,
)

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 100_000


class ReadFileParams(ToolParams):
    path: str = Field(description="Path of the file, relative to the project root (or absolute).")
    offset: int | None = Field(
        default=None, ge=1, description="1-based line number to start reading from."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"How many lines to read (default {DEFAULT_LIMIT})."
    )


def binary_message(path: Path, shown: str) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "unknown type"
    return (
        f"{shown} is a binary file ({path.stat().st_size} bytes, {kind}); read_file shows "
        "text files only."
    )


def number_lines(path: Path, start: int, limit: int) -> tuple[list[str], int, bool]:
    """`cat -n` lines from `start` (1-based); also the file's line count and whether the
    output cap cut the range short."""
    out: list[str] = []
    size = 0
    total = 0
    capped = False
    with io.TextIOWrapper(open_regular(path), encoding="utf-8", errors="replace",
                          newline="") as handle:
        for total, line in enumerate(handle, start=1):  # noqa: B007
            if total < start or len(out) >= limit or capped:
                continue
            text = line.rstrip("\r\n")
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + f"… [line cut at {MAX_LINE_CHARS} characters]"
            entry = f"{total:>6}\t{text}"
            if size + len(entry) > MAX_OUTPUT_CHARS and out:
                capped = True
                continue
            out.append(entry)
            size += len(entry) + 1
    return out, total, capped


class ReadFile(BuiltinTool[ReadFileParams]):
    name = "read_file"
    Params = ReadFileParams
    risk = Risk.READ
    path_params = ("path",)
    description = "Read a text file with line numbers; an image is shown as an image."

    async def execute(self, params: ReadFileParams, ctx: ToolContext) -> ToolResult:
        path = resolve(ctx, params.path)
        shown = rel(ctx, path)
        if not path.exists():
            return ToolResult.error(f"{shown} does not exist.")
        if path.is_dir():
            return ToolResult.error(f"{shown} is a directory; use tree_view or glob to list it.")
        if is_image_path(path):
            try:
                image = await asyncio.to_thread(load_image, ctx.project_root, str(path))
            except UsageError as exc:
                return ToolResult.error(str(exc))
            return ToolResult(image_line(image), images=(image,),
                              data={"path": shown, "image": True})
        with open_regular(path, shown) as handle:
            head = handle.read(BINARY_SNIFF_BYTES)
        if looks_binary(head):
            return ToolResult.error(binary_message(path, shown))
        start = params.offset or 1
        limit = params.limit or DEFAULT_LIMIT
        lines, total, capped = number_lines(path, start, limit)
        if total == 0:
            return ToolResult(f"{shown} is empty.")
        if start > total:
            return ToolResult.error(
                f"offset {start} is past the end of {shown}, which has {total} lines."
            )
        last = start + len(lines) - 1
        text = "\n".join(lines)
        if last < total:
            why = "the output cap was reached" if capped else f"limit {limit}"
            text += (
                f"\n… {total - last} more lines ({why}); read on with offset={last + 1}."
            )
        return ToolResult(text, data={"path": shown, "start": start, "end": last, "total": total})
