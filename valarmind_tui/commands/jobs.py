"""/jobs: the session's background commands (bash's run_in_background, `!cmd &`).

`/jobs` lists them with the last lines of each (the TUI opens a screen whose tails follow the
output); `/jobs tail HANDLE [LINES]`, `/jobs stop HANDLE`, `/jobs keep HANDLE` (it outlives the
session: see docs/background.md for what the sandbox allows).
"""

from __future__ import annotations

from valarmind_tui.commands.api import Command, CommandContext
from valarmind_tui.commands.result import CommandResult, ShowJobs
from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.visible_text import visible

TAIL_LINES = 5
USAGE = "/jobs [tail HANDLE [LINES] | stop HANDLE | keep HANDLE]"


def listing(ctx: CommandContext, lines: int = TAIL_LINES) -> str:
    """Every background command of the session with the last `lines` lines of its output."""
    jobs = ctx.jobs.jobs()
    if not jobs:
        return ("No background commands in this session. Start one with `!command &`, or an "
                "agent does with bash's run_in_background.")
    parts = []
    for job in jobs:
        parts.append(f"- `{visible(job.describe())}`")
        tail = job.ring.tail(lines)
        if tail:
            parts.append("  ```\n" + "\n".join(f"  {visible(t)}" for t in tail.splitlines())
                         + "\n  ```")
    return "\n".join(parts)


async def jobs(ctx: CommandContext, args: str) -> CommandResult:
    words = args.split()
    if not words:
        return CommandResult(listing(ctx), data=ctx.jobs.jobs(), action=ShowJobs())
    verb, rest = words[0], words[1:]
    if verb not in ("tail", "stop", "keep") or not rest:
        return CommandResult(f"Usage: {USAGE}", ok=False)
    try:
        job = ctx.jobs.get(rest[0])
        if verb == "stop":
            job = await ctx.jobs.stop(job.handle)
            return CommandResult(f"Stopped: `{visible(job.describe())}`")
        if verb == "keep":
            job = ctx.jobs.keep(job.handle)
            note = (" In the sandbox it still ends when ValarMind exits (bubblewrap ends its "
                    "commands with their parent); it is only left out when this session ends."
                    if job.spec.sandboxed else
                    " It is left running when the session ends; stop it yourself (its process "
                    f"group is {job.pid}).")
            return CommandResult(f"Kept alive: `{visible(job.describe())}`.{note}")
        count = int(rest[1]) if len(rest) > 1 and rest[1].isdigit() else 40
    except ToolError as exc:
        return CommandResult(str(exc), ok=False)
    tail = visible(job.ring.tail(count)) or "(no output yet)"
    return CommandResult(f"`{visible(job.describe())}`\n```\n{tail}\n```")


def handles(ctx: CommandContext) -> list[str]:
    return ["tail", "stop", "keep"]


COMMANDS = [
    Command("jobs", "Background commands: list with their last output, tail, stop, keep",
            jobs, usage=USAGE, choices=handles),
]
