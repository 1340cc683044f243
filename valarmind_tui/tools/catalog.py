"""The built-in tool set every session starts from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from valarmind_tui.tools.files.edit_file import EditFile
from valarmind_tui.tools.files.glob import Glob
from valarmind_tui.tools.files.grep import Grep
from valarmind_tui.tools.files.read_file import ReadFile
from valarmind_tui.tools.files.read_many_files import ReadManyFiles
from valarmind_tui.tools.files.repo_map import RepoMapTool
from valarmind_tui.tools.files.tree_view import TreeView
from valarmind_tui.tools.files.write_file import WriteFile
from valarmind_tui.tools.git.git_diff import GitDiff
from valarmind_tui.tools.git.git_status import GitStatus
from valarmind_tui.tools.lsp.lsp_definition import LspDefinition
from valarmind_tui.tools.lsp.lsp_diagnostics import LspDiagnostics
from valarmind_tui.tools.lsp.lsp_hover import LspHover
from valarmind_tui.tools.lsp.lsp_references import LspReferences
from valarmind_tui.tools.registry import ToolRegistry
from valarmind_tui.tools.shell.bash import Bash
from valarmind_tui.tools.shell.command_output import CommandOutput
from valarmind_tui.tools.shell.command_stop import CommandStop

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox


def builtin_tools(sandbox: Sandbox | None = None) -> ToolRegistry:
    """read_file, read_many_files, glob, grep, tree_view, git_status, git_diff, repo_map,
    write_file, edit_file, bash and its background commands' command_output and command_stop,
    and the language-server tools (lsp_definition, lsp_references, lsp_hover, lsp_diagnostics),
    in that order; bash runs its commands in `sandbox` (else in the call's ctx.sandbox)."""
    return ToolRegistry([
        ReadFile(), ReadManyFiles(), Glob(), Grep(), TreeView(), GitStatus(), GitDiff(),
        RepoMapTool(), WriteFile(), EditFile(), Bash(sandbox=sandbox), CommandOutput(),
        CommandStop(), LspDefinition(), LspReferences(), LspHover(), LspDiagnostics(),
    ])
