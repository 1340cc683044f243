"""The built-in commands by family, the one list of them (plugins/defaults.py registers it).

/setup (setup.py) comes last and is not listed here: it reports clashes with these names."""

from __future__ import annotations

from valarmind_tui.commands import (
    agent,
    commit,
    export,
    general,
    goal,
    image,
    jobs,
    knowledge,
    memory,
    rewind,
    styles,
    undo,
    worktrees,
)
from valarmind_tui.commands.api import Command

FAMILIES = (general, knowledge, agent, undo, export, rewind, commit, jobs, memory, styles,
            image, goal, worktrees)


def builtin_commands() -> list[Command]:
    return [command for family in FAMILIES for command in family.COMMANDS]


def builtin_command_names() -> list[str]:
    return [command.name for command in builtin_commands()]
