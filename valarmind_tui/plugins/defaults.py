"""The built-in commands as a plugin: `load_plugins` registers `BuiltinCommands` first, so the
built-in commands reach the registry through the same `register_commands` hook as a plugin's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from valarmind_tui.commands import setup
from valarmind_tui.commands.families import builtin_commands
from valarmind_tui.plugins.specs import hookimpl


class BuiltinCommands:
    """The built-in plugin. `tryfirst`: its commands come first, so a plugin's command of the
    same name is the one left out (with a warning), never a built-in."""

    @hookimpl(tryfirst=True)
    def register_commands(self, register: Callable[[Any], None]) -> None:
        for command in (*builtin_commands(), *setup.COMMANDS):
            register(command)
