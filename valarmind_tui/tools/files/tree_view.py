"""tree_view: the directory tree, .gitignore respected, to a chosen depth."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from valarmind_tui.safety.ignore import GitignoreWalker, IgnoreRule
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool, rel, resolve

MAX_ENTRIES = 800
MAX_DEPTH = 10


class TreeParams(ToolParams):
    path: str | None = Field(
        default=None, description="Directory to show (default: the project root)."
    )
    depth: int = Field(
        default=3, ge=1, le=MAX_DEPTH, description="How many directory levels to show."
    )


class TreeView(BuiltinTool[TreeParams]):
    name = "tree_view"
    Params = TreeParams
    risk = Risk.READ
    path_params = ("path",)
    description = "Show the directory tree."

    async def execute(self, params: TreeParams, ctx: ToolContext) -> ToolResult:
        base = resolve(ctx, params.path or ".")
        if not base.is_dir():
            return ToolResult.error(f"{rel(ctx, base)} is not a directory.")
        walker = GitignoreWalker(ctx.project_root.resolve())
        lines: list[str] = [rel(ctx, base) + "/"]
        self._render(walker, base, walker.rules_for(base), params.depth, 1, lines)
        if len(lines) > MAX_ENTRIES:
            lines = lines[:MAX_ENTRIES] + ["… (tree cut; ask for a subdirectory or less depth)"]
        return ToolResult("\n".join(lines))

    def _render(
        self, walker: GitignoreWalker, directory: Path, rules: list[IgnoreRule], depth: int,
        level: int, lines: list[str],
    ) -> None:
        entries = walker.entries(directory, rules)
        dirs = [e for e in entries if e.is_dir(follow_symlinks=False)]
        files = [e for e in entries if not e.is_dir(follow_symlinks=False)]
        indent = "  " * level
        for entry in dirs:
            if len(lines) > MAX_ENTRIES:
                return
            path = Path(entry.path)
            if level < depth:
                lines.append(f"{indent}{entry.name}/")
                self._render(walker, path, walker.child_rules(path, rules), depth, level + 1,
                             lines)
            else:
                count = len(walker.entries(path, walker.child_rules(path, rules)))
                lines.append(f"{indent}{entry.name}/ ({count} entries)")
        for entry in files:
            suffix = " -> (symlink)" if entry.is_symlink() else ""
            lines.append(f"{indent}{entry.name}{suffix}")
