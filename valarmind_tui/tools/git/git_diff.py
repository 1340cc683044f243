"""git_diff: unified diffs of the working tree, the index, or against a ref."""

from __future__ import annotations

from pydantic import Field

from valarmind_tui.safety.content import redact_sensitive_diff
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool, rel, resolve
from valarmind_tui.tools.git.refs import verify_revision
from valarmind_tui.tools.git.run import run_git


class GitDiffParams(ToolParams):
    staged: bool = Field(
        default=False, description="Show staged changes (the index) instead of unstaged ones."
    )
    ref: str | None = Field(
        default=None,
        description="Compare against this commit, branch or range (`HEAD~1`, `main`, `a..b`).",
    )
    paths: list[str] | None = Field(
        default=None, description="Only these files or directories (project-relative)."
    )


class GitDiff(BuiltinTool[GitDiffParams]):
    name = "git_diff"
    Params = GitDiffParams
    risk = Risk.READ
    path_params = ("paths",)
    description = "Show git diffs."

    async def execute(self, params: GitDiffParams, ctx: ToolContext) -> ToolResult:
        args = ["diff", "--no-ext-diff", "--no-textconv", "--no-color"]
        if params.staged:
            args.append("--cached")
        args.append("--end-of-options")
        if params.ref:

            async def git_ok(check: list[str]) -> bool:
                return not (await run_git(check, ctx)).is_error

            args.append(await verify_revision(params.ref, git_ok))
        args.append("--")
        args += [rel(ctx, resolve(ctx, p)) for p in params.paths or []]
        result = await run_git(args, ctx)
        if result.is_error:
            return result
        if result.output.strip():
            text, left_out = redact_sensitive_diff(result.output, ctx.project_root)
            data = {"left_out": left_out} if left_out else None
            return ToolResult(text, data=data)
        what = "staged" if params.staged else ("" if params.ref else "unstaged")
        against = f" against {params.ref}" if params.ref else ""
        return ToolResult(f"No {what + ' ' if what else ''}changes{against}.")
