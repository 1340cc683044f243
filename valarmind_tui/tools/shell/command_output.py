"""command_output {handle, since, wait_s}: what a background command printed since an offset.

The text comes from the command's ring on disk (`output_ring.py`), already masked; the reply
ends with the offset to pass next time and, once the command ended, its exit status.
"""

from __future__ import annotations

import asyncio
import contextlib

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.shell.jobs import BackgroundJobs, Job

MAX_READ_BYTES = 30_000
MAX_WAIT_S = 30.0


class CommandOutputParams(ToolParams):
    handle: str = Field(description="The handle bash returned for a background command (job-1).")
    since: int = Field(
        default=0, ge=0,
        description="Offset to read from: 0 for everything kept, or the `next` offset the "
                    "previous command_output returned, for only what is new.")
    wait_s: float = Field(
        default=0, ge=0, le=MAX_WAIT_S,
        description=f"Wait up to this many seconds (at most {MAX_WAIT_S:g}) for new output or "
                    "the command's end when there is none yet.")


def session_jobs(ctx: ToolContext) -> BackgroundJobs:
    jobs = ctx.services.jobs
    if jobs is None:
        raise ToolError("Background commands are not available here.")
    return jobs


class CommandOutput(BuiltinTool[CommandOutputParams]):
    name = "command_output"
    Params = CommandOutputParams
    risk = Risk.READ
    companion_of = "bash"
    description = "New output of a background command since an offset, and its exit status."

    async def execute(self, params: CommandOutputParams, ctx: ToolContext) -> ToolResult:
        job = session_jobs(ctx).get(params.handle)
        if params.wait_s and job.running and job.ring.written <= params.since:
            job.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(job.changed.wait(), params.wait_s)
        return output_result(job, params.since)


def output_result(job: Job, since: int) -> ToolResult:
    """The text since `since` and a footer: the next offset and the state."""
    piece = job.ring.read(since, MAX_READ_BYTES)
    parts = []
    if piece.dropped:
        parts.append(f"[{piece.dropped} bytes no longer kept (the output ring is bounded)]")
    parts.append(piece.text if piece.text else "(no new output)")
    state = "still running" if job.running else f"{job.state}, exit code {job.exit_code}"
    more = f"; {piece.written - piece.end} more bytes follow" if piece.written > piece.end else ""
    parts.append(f"[{job.handle}: {state}{more}; next since={piece.end}]")
    data = {"handle": job.handle, "since": since, "next": piece.end, "running": job.running,
            "state": job.state, "exit_code": job.exit_code, "dropped": piece.dropped}
    return ToolResult("\n".join(parts), data=data)
