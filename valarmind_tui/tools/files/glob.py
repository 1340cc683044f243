"""glob: files whose paths match a pattern, .gitignore respected."""

from __future__ import annotations

from pydantic import Field

from valarmind_tui.safety.ignore import GitignoreWalker
from valarmind_tui.safety.paths import glob_match
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool, rel, resolve

MAX_RESULTS = 500


class GlobParams(ToolParams):
    pattern: str = Field(
        description="Glob pattern relative to `path`, e.g. `**/*.py` (any depth) or `src/*.ts`."
    )
    path: str | None = Field(
        default=None, description="Directory to search in (default: the project root)."
    )


class Glob(BuiltinTool[GlobParams]):
    name = "glob"
    Params = GlobParams
    risk = Risk.READ
    path_params = ("path",)
    description = "Find files by glob pattern."

    async def execute(self, params: GlobParams, ctx: ToolContext) -> ToolResult:
        pattern = params.pattern.strip().removeprefix("./")
        if not pattern or pattern.startswith("/") or ".." in pattern.split("/"):
            return ToolResult.error(
                "The pattern must be relative to `path` (no leading / and no ..); "
                "set `path` to search another project directory."
            )
        base = resolve(ctx, params.path or ".")
        if not base.is_dir():
            return ToolResult.error(f"{rel(ctx, base)} is not a directory.")
        walker = GitignoreWalker(ctx.project_root.resolve())
        matches = [
            rel(ctx, p) for p in walker.walk_files(base)
            if glob_match(pattern, p.relative_to(base).as_posix())
        ]
        if not matches:
            return ToolResult(f"No files match {pattern!r} under {rel(ctx, base)}.")
        shown = matches[:MAX_RESULTS]
        text = "\n".join(shown)
        if len(matches) > MAX_RESULTS:
            text += f"\n… {len(matches) - MAX_RESULTS} more; narrow the pattern."
        return ToolResult(text, data={"files": matches})
