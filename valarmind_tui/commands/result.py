"""What a command returns to the face that ran it: its text, and the face-level action to take.

`Action` is a closed union: each face handles it with `match` ending in `assert_never`, so a new
action makes mypy name every face that does not perform it yet. An action is a fact about what
the command did or asks the face to do, never a string to parse.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Quit:
    """/quit: the face ends."""


@dataclass(frozen=True)
class Clear:
    """/clear emptied the conversation: a face that shows it empties its view."""


@dataclass(frozen=True)
class SwitchTheme:
    """/theme: only a face with themes (the TUI) knows which loaded, so it answers."""

    name: str
    """The theme asked for; "" to list them."""


@dataclass(frozen=True)
class PickRewind:
    """/rewind without a number: the face opens its picker of points to go back to."""


@dataclass(frozen=True)
class PickResume:
    """/resume without an id: the face opens its picker of stored sessions."""


@dataclass(frozen=True)
class Resume:
    """/resume ID: the face switches to that stored session."""

    session_id: str


@dataclass(frozen=True)
class ConversationRewound:
    """/rewind --prompt N cut the conversation: the face shows what is left of it."""


@dataclass(frozen=True)
class EditFiles:
    """/memory: a face with a terminal opens these files in the person's $EDITOR."""

    paths: tuple[Path, ...]

    def command(self) -> list[str]:
        """$VISUAL, else $EDITOR, else vi, with the paths (absolute: never read as options)."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        return [*shlex.split(editor), *(str(path.absolute()) for path in self.paths)]


Action: TypeAlias = (
    Quit | Clear | SwitchTheme | PickRewind | PickResume | Resume | ConversationRewound
    | EditFiles
)


@dataclass(frozen=True)
class CommandResult:
    """What a command returns to the face that ran it."""

    text: str
    """Markdown shown to the person."""
    ok: bool = True
    data: Any = None
    """Structured payload (e.g. review findings) for faces that render tables or JSON."""
    action: Action | None = None
    """What the face should do besides showing `text` (None: nothing)."""


def refused_while_busy(name: str) -> CommandResult:
    """The answer to a command that cannot run while the agent is working."""
    return CommandResult(
        f"/{name} cannot run while the agent is working: wait for the answer or press Esc to "
        "cancel it.", ok=False,
    )
