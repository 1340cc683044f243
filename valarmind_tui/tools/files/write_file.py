"""write_file: create or overwrite a file atomically; the result carries the diff.

The file is written only if it is still what the tool read (`atomic_write(unchanged=...)`):
another run or program that wrote it in between is never overwritten, the call fails saying so.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.safe_files import ChangedOnDisk, atomic_write
from valarmind_tui.safety.secrets import refuse_marker_writes
from valarmind_tui.tools.base import Preview, Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import (
    BuiltinTool,
    diff_stats,
    read_text_file,
    rel,
    resolve,
    unified_diff,
)


class WriteParams(ToolParams):
    path: str = Field(description="Path of the file to write, relative to the project root.")
    content: str = Field(description="The complete new content of the file.")


def current_text(path: Path) -> str | None:
    """The file's text, "" for a binary file, None when it does not exist."""
    if not path.exists():
        return None
    if path.is_dir():
        raise ValueError(f"{path.name} is a directory")
    try:
        return read_text_file(path)
    except ValueError:
        return ""


def changed_since_read(shown: str) -> ToolError:
    return ToolError(
        f"{shown} changed on disk after it was read (another program or run wrote it); "
        "nothing was written, so that change is kept. Read the file again and redo the change.")


def commit_change(
    ctx: ToolContext, path: Path, old: str | None, new: str, note: str = ""
) -> ToolResult:
    """Write `new` atomically and report it with its diff (shared with edit_file). Refused
    (ToolError) when it would write a secret's marker where the file held the secret; raises
    ChangedOnDisk when the file is no longer `old` (None: absent) at the moment of writing."""
    shown = rel(ctx, path)
    refuse_marker_writes(shown, old, new)
    if old == new:
        return ToolResult(f"No changes: {shown} already has this content.")
    diff = unified_diff(old or "", new, shown, new_file=old is None)
    atomic_write(path, new, unchanged=lambda: _still(path, old))
    verb = "Created" if old is None else "Updated"
    lines = new.count("\n") + (0 if new.endswith("\n") or not new else 1)
    text = f"{verb} {shown} ({lines} lines, {diff_stats(diff)}).{note}"
    return ToolResult(text, diff=diff, data={"path": shown})


def _still(path: Path, old: str | None) -> bool:
    try:
        return current_text(path) == old
    except (OSError, ValueError):
        return False


class WriteFile(BuiltinTool[WriteParams]):
    name = "write_file"
    Params = WriteParams
    risk = Risk.WRITE
    path_params = ("path",)
    description = "Create or overwrite a file."

    async def preview(self, params: WriteParams, ctx: ToolContext) -> Preview:
        path = resolve(ctx, params.path)
        shown = rel(ctx, path)
        old = current_text(path)
        diff = unified_diff(old or "", params.content, shown, new_file=old is None)
        verb = "Create" if old is None else "Overwrite"
        return Preview(summary=f"{verb} {shown} ({diff_stats(diff)})", diff=diff, paths=(shown,))

    async def execute(self, params: WriteParams, ctx: ToolContext) -> ToolResult:
        path = resolve(ctx, params.path)
        try:
            return commit_change(ctx, path, current_text(path), params.content)
        except ChangedOnDisk:
            return ToolResult.error(str(changed_since_read(rel(ctx, path))))
