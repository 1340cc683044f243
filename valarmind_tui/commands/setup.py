"""/setup: what of the person's Claude Code, Codex, Gemini CLI or OpenCode setup loads here."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.agents.registry import builtin_agent_names
from valarmind_tui.commands.families import builtin_command_names
from valarmind_tui.commands.registry import Command, CommandResult
from valarmind_tui.setup.scan import as_json, render, scan

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


async def setup(ctx: CommandContext, args: str) -> CommandResult:
    """The same screen as `valarmind setup`, for the folder and trust of this session."""
    root, home, trusted = ctx.project_root, Path.home(), ctx.settings.project_trusted
    found = await asyncio.to_thread(scan, root, home, trusted, Path.cwd(),
                                    builtin_commands=[*builtin_command_names(), "setup"],
                                    builtin_agents=builtin_agent_names())
    return CommandResult("```\n" + render(found, root, home, trusted) + "\n```",
                         data=as_json(found))


COMMANDS = (
    Command("setup", "what of your Claude Code, Codex, Gemini or OpenCode setup loaded, and why "
            "not", handler=setup),
)
