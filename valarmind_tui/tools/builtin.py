"""The built-in tool set every session starts from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from valarmind_tui.tools.bash import Bash
from valarmind_tui.tools.edit_file import EditFile
from valarmind_tui.tools.git_diff import GitDiff
from valarmind_tui.tools.git_status import GitStatus
from valarmind_tui.tools.glob import Glob
from valarmind_tui.tools.grep import Grep
from valarmind_tui.tools.read_file import ReadFile
from valarmind_tui.tools.read_many_files import ReadManyFiles
from valarmind_tui.tools.registry import ToolRegistry
from valarmind_tui.tools.repo_map import RepoMapTool
from valarmind_tui.tools.tree_view import TreeView
from valarmind_tui.tools.write_file import WriteFile

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox import Sandbox


def builtin_tools(sandbox: Sandbox | None = None) -> ToolRegistry:
    """read_file, read_many_files, glob, grep, tree_view, git_status, git_diff, repo_map,
    write_file, edit_file and bash, in that order; bash runs its commands in `sandbox` (else
    in the call's ctx.sandbox)."""
    return ToolRegistry([
        ReadFile(), ReadManyFiles(), Glob(), Grep(), TreeView(), GitStatus(), GitDiff(),
        RepoMapTool(), WriteFile(), EditFile(), Bash(sandbox=sandbox),
    ])
