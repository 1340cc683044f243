"""The built-in commands as a plugin: `load_plugins` registers `BuiltinCommands` first, so the
built-in commands reach the registry through the same `register_commands` hook as a plugin's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from valarmind_tui.commands import agent, commit, general, knowledge, rewind, session, setup
from valarmind_tui.plugins.specs import hookimpl

FAMILIES = (general, knowledge, agent, session, rewind, commit, setup)


class BuiltinCommands:
    """The built-in plugin. `tryfirst`: its commands come first, so a plugin's command of the
    same name is the one left out (with a warning), never a built-in."""

    @hookimpl(tryfirst=True)
    def register_commands(self, register: Callable[[Any], None]) -> None:
        for family in FAMILIES:
            for command in family.COMMANDS:
                register(command)
