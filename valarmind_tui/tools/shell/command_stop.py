"""command_stop {handle}: end a background command and every process it started."""

from __future__ import annotations

from pydantic import Field

from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.shell.command_output import output_result, session_jobs


class CommandStopParams(ToolParams):
    handle: str = Field(description="The handle of the background command to end (job-1).")
    since: int = Field(default=0, ge=0,
                       description="Offset from which to return its last output.")


class CommandStop(BuiltinTool[CommandStopParams]):
    name = "command_stop"
    Params = CommandStopParams
    risk = Risk.READ
    companion_of = "bash"
    description = "End a background command (its whole process group) and get its last output."

    async def execute(self, params: CommandStopParams, ctx: ToolContext) -> ToolResult:
        jobs = session_jobs(ctx)
        job = jobs.get(params.handle)
        if not job.running:
            result = output_result(job, params.since)
            return ToolResult(f"{job.handle} had already ended.\n{result.output}",
                              data=result.data)
        job = await jobs.stop(params.handle)
        return output_result(job, params.since)
