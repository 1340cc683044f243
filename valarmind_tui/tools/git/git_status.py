"""git_status: the branch and what changed, in git's short format."""

from __future__ import annotations

from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.git.run import run_git


class GitStatusParams(ToolParams):
    pass


class GitStatus(BuiltinTool[GitStatusParams]):
    name = "git_status"
    Params = GitStatusParams
    risk = Risk.READ
    description = "Show the git branch and changed files."

    async def execute(self, params: GitStatusParams, ctx: ToolContext) -> ToolResult:
        result = await run_git(["status", "--short", "--branch", "--untracked-files=all"], ctx)
        if result.is_error:
            return result
        lines = result.output.splitlines()
        if len(lines) <= 1:
            return ToolResult(result.output.rstrip() + "\nWorking tree clean.")
        return result
