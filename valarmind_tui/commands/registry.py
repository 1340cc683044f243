"""Slash commands: one registry shared by the TUI, the plain REPL, headless runs and plugins."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from valarmind_tui.session import Session


@dataclass(frozen=True)
class CommandResult:
    """What a command returns to the face that ran it."""

    text: str
    """Markdown shown to the person."""
    ok: bool = True
    data: Any = None
    """Structured payload (e.g. review findings) for faces that render tables or JSON."""
    action: str | None = None
    """A face-level action the face should perform: `quit`, `clear`, `theme:<name>`."""


Handler = Callable[["Session", str], Awaitable[CommandResult]]


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

    def register(self, command: Command) -> None:
        self._commands[command.name] = command

    def get(self, name: str) -> Command | None:
        return self._commands.get(name.lstrip("/"))

    def all(self) -> list[Command]:
        return sorted(self._commands.values(), key=lambda c: c.name)

    def complete(self, prefix: str) -> list[Command]:
        """Commands whose name starts with `prefix` (slash optional)."""
        stem = prefix.lstrip("/")
        return [c for c in self.all() if c.name.startswith(stem)]

    def suggest(self, name: str) -> list[str]:
        """The nearest command names to an unknown one."""
        return difflib.get_close_matches(name.lstrip("/"), list(self._commands), n=3, cutoff=0.5)

    async def run(self, session: Session, line: str) -> CommandResult:
        """Run `/name args`; an unknown name suggests the nearest."""
        name, _, args = line.strip().lstrip("/").partition(" ")
        command = self.get(name)
        if command is None:
            near = self.suggest(name)
            hint = f" Did you mean {', '.join('/' + n for n in near)}?" if near else ""
            text = f"Unknown command /{name}.{hint} Type /help for the list."
            return CommandResult(text, ok=False)
        if command.idle_only and session.busy:
            return refused_while_busy(command.name)
        return await command.handler(session, args.strip())


def command(
    registry: CommandRegistry, name: str, help: str, usage: str = "", *, idle_only: bool = False,
) -> Callable[[Handler], Handler]:
    """Decorator registering a handler."""

    def wrap(handler: Handler) -> Handler:
        registry.register(Command(name=name, help=help, handler=handler, usage=usage,
                                  idle_only=idle_only))
        return handler

    return wrap
