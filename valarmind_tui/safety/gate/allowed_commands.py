"""Commands an agent may run by argv prefix: `pytest -q tests/x.py` is a run of `pytest -q`.

A call matches an allowed command only when it is ONE simple command the shell parser sees
completely (no `;`, `&&`, pipes, substitutions, redirections, variable words, launchers such as
`sh -c` or `env`, no leading assignments) and every word of the allowed command is, in order, a
word at the start of the call. Used by the gate for an agent's `execute_allow` and by the
headless policy for `--allow-project-commands`.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from valarmind_tui.safety.shell.command import parse_command

__all__ = ["allowed_by_prefix", "simple_words"]


def simple_words(command: str) -> list[str] | None:
    """The words of `command` when it is exactly one fully known simple command, else None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    parsed = parse_command(command)
    if parsed.unparseable or parsed.writes or len(parsed.commands) != 1:
        return None
    only = parsed.commands[0]
    if only.via or any(word is None for word in only.argv) or len(only.argv) != len(words):
        return None  # a launcher, an expansion, a redirection or an assignment
    return words


def allowed_by_prefix(command: str, allowed: Iterable[str]) -> str | None:
    """The allowed command `command` runs (by argv prefix), or None."""
    words = simple_words(command)
    if words is None:
        return None
    for candidate in allowed:
        try:
            prefix = shlex.split(candidate)
        except ValueError:
            continue
        if prefix and words[: len(prefix)] == prefix:
            return candidate
    return None
