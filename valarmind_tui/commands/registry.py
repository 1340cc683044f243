"""Slash commands: what a command is and returns, and the registry every face completes from.

Lines are read and commands run by the router (router.py); commands are registered through the
plugin hook (`register_commands`), the built-in ones by the built-in plugin (builtin.py)."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


@dataclass(frozen=True)
class CommandResult:
    """What a command returns to the face that ran it."""

    text: str
    """Markdown shown to the person."""
    ok: bool = True
    data: Any = None
    """Structured payload (e.g. review findings) for faces that render tables or JSON."""
    action: str | None = None
    """A face-level action the face should perform: `quit`, `clear`, `theme:<name>`,
    `pick-rewind`, `pick-resume`, `resume:<id>`, `rewound-conversation`."""


Handler = Callable[["CommandContext", str], Awaitable[CommandResult]]
Choices = Callable[["CommandContext"], Sequence[str]]
"""The values a command's first argument takes, for completion (theme, model, mode...)."""


@dataclass(frozen=True)
class Command:
    name: str
    """Without the slash."""
    help: str
    """One line."""
    handler: Handler
    usage: str = ""
    idle_only: bool = False
    """Refused while a prompt runs: its end would undo the command (/clear, /compact) or the
    command runs a turn of its own."""
    choices: Choices | None = None
    """What Tab offers after `/name `; None when the argument is free text."""


def refused_while_busy(name: str) -> CommandResult:
    """The answer to a command that cannot run while the agent is working."""
    return CommandResult(
        f"/{name} cannot run while the agent is working: wait for the answer or press Esc to "
        "cancel it.", ok=False,
    )


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
