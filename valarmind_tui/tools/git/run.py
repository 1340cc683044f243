"""Running git for the read-only git tools, without letting a repository run its own code.

`safety.git_hardening.harden` gives the argv and environment (the repository's program keys
neutralised by name whatever file sets them, hooks, fsmonitor and transport off, GIT_DIR and
GIT_WORK_TREE pinned to the project); diff-like commands also get `--no-ext-diff --no-textconv`.
Inside the sandbox (ctx.sandbox) git also cannot write outside the project or reach the network.
"""

from __future__ import annotations

from collections.abc import Sequence

from valarmind_tui.safety.git_hardening import HardenedGit, RepositoryRefused, harden_async
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.common import ProcessResult, cap_middle, run_process

GIT_TIMEOUT_S = 60.0
MAX_OUTPUT_CHARS = 60_000
NO_PROGRAMS = ("--no-ext-diff", "--no-textconv")
DIFF_LIKE = frozenset({"diff", "log", "show"})
"""Subcommands that accept NO_PROGRAMS."""


async def run_git(args: Sequence[str], ctx: ToolContext) -> ToolResult:
    """`git <args>` in the project root; git's own error message when it fails."""
    try:
        git = await harden_async(ctx.project_root)
    except RepositoryRefused as exc:
        return ToolResult.error(str(exc))
    args = list(args)
    if args and args[0] in DIFF_LIKE:
        args[1:1] = NO_PROGRAMS
    result = await _git(git, args, ctx)
    if result.timed_out:
        return ToolResult.error(f"git {args[0]} took longer than {GIT_TIMEOUT_S:.0f} s.")
    if result.cancelled:
        return ToolResult.error(f"git {args[0]} was cancelled.")
    if result.returncode != 0:
        message = result.stderr.strip() or result.stdout.strip()
        if "not a git repository" in message:
            return ToolResult.error("The project is not a git repository.")
        return ToolResult.error(f"git {args[0]} failed: {message}")
    return ToolResult(cap_middle(result.stdout.rstrip(), MAX_OUTPUT_CHARS))


async def _git(git: HardenedGit, args: Sequence[str], ctx: ToolContext) -> ProcessResult:
    argv = [*git.argv, *args]
    if ctx.sandbox is None:
        return await run_process(argv, cwd=git.root, timeout=GIT_TIMEOUT_S,
                                 cancel_event=ctx.cancel_event, env=git.env)
    with ctx.sandbox.guard(git.root):
        return await run_process(ctx.sandbox.wrap(argv, git.root, env=git.env), cwd=git.root,
                                 timeout=GIT_TIMEOUT_S, cancel_event=ctx.cancel_event,
                                 env=git.env)
