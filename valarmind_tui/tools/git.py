"""Running git for the read-only git tools, without letting a repository run its own code."""

from __future__ import annotations

from collections.abc import Sequence

from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.common import cap_middle, run_process

GIT_TIMEOUT_S = 60.0
MAX_OUTPUT_CHARS = 60_000
# A cloned repository's config can name programs git would run (fsmonitor, external diff,
# textconv); these flags keep the read-only tools from executing them.
SAFE_FLAGS = ("-c", "core.fsmonitor=false", "-c", "core.quotepath=off", "-c", "color.ui=never")


async def run_git(args: Sequence[str], ctx: ToolContext) -> ToolResult:
    """`git <args>` in the project root; git's own error message when it fails."""
    result = await run_process(
        ["git", *SAFE_FLAGS, *args], cwd=ctx.project_root.resolve(), timeout=GIT_TIMEOUT_S,
        cancel_event=ctx.cancel_event,
    )
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
