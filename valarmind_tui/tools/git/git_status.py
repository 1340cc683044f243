"""git_status: the branch and what changed, in git's short format."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from valarmind_tui.tools.base import Risk, ToolContext, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.git.run import run_git


class Params(BaseModel):
    pass


class GitStatus(BuiltinTool):
    name = "git_status"
    Params: ClassVar[type[BaseModel]] = Params
    risk = Risk.READ
    description = "Show the git branch and changed files."

    async def execute(self, params: BaseModel, ctx: ToolContext) -> ToolResult:
        result = await run_git(["status", "--short", "--branch", "--untracked-files=all"], ctx)
        if result.is_error:
            return result
        lines = result.output.splitlines()
        if len(lines) <= 1:
            return ToolResult(result.output.rstrip() + "\nWorking tree clean.")
        return result
