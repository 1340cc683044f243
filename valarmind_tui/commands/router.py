"""The one router: every face (TUI, REPL, `-p`, ACP) and `Session.submit` read an input line here.

`parse` is the only reader of a slash line (`/name args`; anything else is a prompt for the
model); `run` runs a parsed line: an unknown name gets the nearest names (did-you-mean), a command
a running turn would undo is refused while one runs (`Command.idle_only`). Faces keep their own
presentation: they act on `CommandResult.action` (quit, clear, theme, pickers), never on the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from valarmind_tui.commands.result import CommandResult, refused_while_busy
from valarmind_tui.core.errors import UsageError

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


@dataclass(frozen=True)
class SlashLine:
    """An input line read as a command."""

    name: str
    """Without the slash; may be unknown or empty."""
    args: str
    """Everything after the name, stripped."""


def parse(line: str) -> SlashLine | None:
    """`/name args` as a SlashLine; None for a prompt (anything not starting with a slash,
    blanks before it ignored)."""
    text = line.strip()
    if not text.startswith("/"):
        return None
    words = text[1:].split(None, 1)
    return SlashLine(words[0] if words else "", words[1].strip() if len(words) > 1 else "")


async def run(ctx: CommandContext, slash: SlashLine) -> CommandResult:
    """Run a parsed line in `ctx`."""
    command = ctx.commands.get(slash.name)
    if command is None:
        near = ctx.commands.suggest(slash.name)
        hint = f" Did you mean {', '.join('/' + n for n in near)}?" if near else ""
        return CommandResult(f"Unknown command /{slash.name}.{hint} Type /help for the list.",
                             ok=False)
    if command.idle_only and ctx.busy:
        return refused_while_busy(command.name)
    try:
        return await command.handler(ctx, slash.args)
    except UsageError as exc:  # said where the command was typed, never a background failure
        return CommandResult(str(exc), ok=False)


async def run_line(ctx: CommandContext, line: str) -> CommandResult:
    """Run `line`, which must be a slash line (the headless subcommands build theirs)."""
    slash = parse(line)
    if slash is None:
        return CommandResult(f"Not a command: {line.strip()!r} (commands start with /).",
                             ok=False)
    return await run(ctx, slash)
