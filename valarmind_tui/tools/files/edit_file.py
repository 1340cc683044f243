"""edit_file: replace a string in a file (exact, whitespace-tolerant, then fuzzy), atomically.

When another run or program writes the file between this tool's read and its write (two runs
editing one file), the write is refused (`atomic_write(unchanged=...)`) and the edit is planned
again on the new text, only while `old_string` is still found exactly once there; otherwise
the call fails saying why. Another writer's change is never overwritten.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.safe_files import ChangedOnDisk
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
from valarmind_tui.tools.files.edit_match import EditNotApplied, EditPlan, plan_edit
from valarmind_tui.tools.files.write_file import changed_since_read, commit_change

REAPPLY_ATTEMPTS = 5
"""Re-plans after a concurrent write; each one needs yet another write in between."""


class EditParams(ToolParams):
    path: str = Field(description="Path of the file to edit, relative to the project root.")
    old_string: str = Field(
        description="The exact text to replace, including enough surrounding lines to be "
        "unique. Empty only to create a new file."
    )
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


def _note(plan: EditPlan) -> str:
    where = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in plan.ranges)
    if plan.strategy == "whitespace":
        return (f" Matched ignoring whitespace at line(s) {where}; new_string was re-indented "
                "to the file's indentation.")
    if plan.strategy == "fuzzy":
        return (f" No exact match: replaced the closest text, lines {where} "
                f"({plan.similarity:.0%} similar). Check the diff.")
    return f" Replaced {len(plan.ranges)} occurrences." if len(plan.ranges) > 1 else ""


def _reapplicable(params: EditParams, path: Path) -> bool:
    """Whether the edit may be planned again on a file someone else just wrote: only when its
    old text is still there exactly once (a whitespace or fuzzy match could now land on the
    other writer's lines)."""
    try:
        text = read_text_file(path)
    except (OSError, ValueError):
        return False
    return bool(params.old_string) and text.count(params.old_string) == 1


class EditFile(BuiltinTool[EditParams]):
    name = "edit_file"
    Params = EditParams
    risk = Risk.WRITE
    path_params = ("path",)
    description = "Replace text in a file."

    def _plan(self, params: EditParams, ctx: ToolContext) -> tuple[Path, str | None, str, str]:
        """(path, old text or None for a new file, new text, note); ToolError when impossible."""
        path = resolve(ctx, params.path)
        shown = rel(ctx, path)
        if params.old_string == params.new_string:
            raise ToolError("old_string and new_string are the same; there is nothing to change.")
        if path.is_dir():
            raise ToolError(f"{shown} is a directory.")
        if not path.exists():
            if params.old_string:
                raise ToolError(f"{shown} does not exist; create it with write_file.")
            return path, None, params.new_string, ""
        try:
            text = read_text_file(path)
        except ValueError:
            raise ToolError(f"{shown} is a binary file; edit_file changes text files.") from None
        if not params.old_string:
            if text:
                raise ToolError("old_string is empty but the file is not; give the text to "
                                "replace, or use write_file to replace the whole file.")
            return path, text, params.new_string, ""
        refuse_marker_writes(shown, text, "", search=params.old_string)
        try:
            plan = plan_edit(text, params.old_string, params.new_string, params.replace_all)
        except EditNotApplied as exc:
            raise ToolError(f"{shown}: {exc}") from None
        return path, text, plan.new_text, _note(plan)

    async def preview(self, params: EditParams, ctx: ToolContext) -> Preview:
        try:
            path, old, new, note = self._plan(params, ctx)
        except ToolError as exc:
            return Preview(summary=f"edit {params.path} (will fail: {exc})", paths=(params.path,))
        shown = rel(ctx, path)
        diff = unified_diff(old or "", new, shown, new_file=old is None)
        return Preview(summary=f"Edit {shown} ({diff_stats(diff)}).{note}", diff=diff,
                       paths=(shown,))

    async def execute(self, params: EditParams, ctx: ToolContext) -> ToolResult:
        for _attempt in range(REAPPLY_ATTEMPTS):
            try:
                path, old, new, note = self._plan(params, ctx)
            except ToolError as exc:
                return ToolResult.error(str(exc))
            try:
                return commit_change(ctx, path, old, new, note)
            except ChangedOnDisk:
                if not _reapplicable(params, path):
                    break
        return ToolResult.error(str(changed_since_read(rel(ctx, path))))
