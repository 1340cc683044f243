"""`valarmind`'s first step: a command that may be a one-shot goes to the run server.

Only os and sys here: `valarmind --version` and the TUI's first frame pay one look at argv.
The hand-over itself (handover.py) loads what a connection needs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

ONE_SHOT_WORDS = frozenset({"-p", "--print", "run", "goal"})
NEVER_SERVED = frozenset({"mcp", "acp", "init", "map", "review", "commit", "undo", "redo",
                          "rewind", "sessions", "cost", "setup", "trust", "worktrees"})
"""The subcommands the run server declines (cli/parser.SUBCOMMANDS but run and goal): with
stdout a pipe they looked like a task, and an editor's `mcp serve` started a run server that
waited out its idle time."""


def run_through_server(argv: Sequence[str]) -> int | None:
    """The exit code of the run the user's run server forked for `argv`; None: run it in
    this process (not a one-shot, or anything off: handover.py)."""
    if os.name != "posix" or not maybe_one_shot(argv):
        return None
    from valarmind_tui.cli.runserver.handover import handed_over

    return handed_over(argv)


def maybe_one_shot(argv: Sequence[str]) -> bool:
    """Cheap: could argv be `-p`, `run` or `goal`, or a task given with the output not a
    terminal? (The forked child decides after parsing, and declines the rest.)"""
    for word in argv:
        if word in ONE_SHOT_WORDS or word.startswith(("--print=", "-p")) and word != "-p-":
            return True
    if any(word in NEVER_SERVED for word in argv):
        return False
    return bool(argv) and not os.isatty(1) and any(not w.startswith("-") for w in argv)
