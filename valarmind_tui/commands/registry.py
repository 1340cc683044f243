"""The registry of slash commands every face completes from.

What a command is lives in api.py, what it returns in result.py; lines are read and commands
run by the router (router.py); commands are registered through the plugin hook
(`register_commands`), the built-in ones by the built-in plugin (plugins/defaults.py)."""

from __future__ import annotations

import difflib

from valarmind_tui.commands.api import Choices, Command, Handler
from valarmind_tui.commands.result import CommandResult, refused_while_busy

__all__ = ["Choices", "Command", "CommandRegistry", "CommandResult", "Handler",
           "refused_while_busy"]
"""Command and CommandResult are named here too: plugins import them from this module."""


class CommandRegistry:
    """Commands by name, with completion and did-you-mean."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}

    def register(self, command: Command) -> bool:
        """Add `command`; False (and nothing changes) when its name is taken."""
        if command.name in self._commands:
            return False
        self._commands[command.name] = command
        return True

    def get(self, name: str) -> Command | None:
        return self._commands.get(name)

    def all(self) -> list[Command]:
        return sorted(self._commands.values(), key=lambda c: c.name)

    def complete(self, prefix: str) -> list[Command]:
        """Commands whose name starts with `prefix` (slash optional)."""
        stem = prefix.lstrip("/")
        return [c for c in self.all() if c.name.startswith(stem)]

    def suggest(self, name: str) -> list[str]:
        """The nearest command names to an unknown one."""
        return difflib.get_close_matches(name, list(self._commands), n=3, cutoff=0.5)
