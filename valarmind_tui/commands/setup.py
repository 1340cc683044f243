"""/setup: what of the person's Claude Code, Codex, Gemini CLI or OpenCode setup loads here."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.agents.registry import builtin_agent_names
from valarmind_tui.commands.families import builtin_command_names
from valarmind_tui.commands.registry import Command, CommandResult

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


async def setup(ctx: CommandContext, args: str) -> CommandResult:
    """The same screen as `valarmind setup`, for the folder and trust of this session."""
    from valarmind_tui.setup.scan import as_json, render, scan  # every scanner: only here

    root, home, trusted = ctx.project_root, Path.home(), ctx.settings.project_trusted
    found = await asyncio.to_thread(scan, root, home, trusted, Path.cwd(),
                                    builtin_commands=taken_command_names(),
                                    builtin_agents=builtin_agent_names())
    return CommandResult("```\n" + render(found, root, home, trusted) + "\n```",
                         data=as_json(found))


COMMANDS = (
    Command("setup", "what of your Claude Code, Codex, Gemini or OpenCode setup loaded, and why "
            "not", handler=setup),
)


def taken_command_names() -> list[str]:
    """Every built-in command's name, /setup's own included: a file's command of one of these
    names is moved to `/project:name` or `/user:name`."""
    return [*builtin_command_names(), *(command.name for command in COMMANDS)]
