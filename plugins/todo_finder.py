"""Example ValarMind plugin: `/todos` lists TODO, FIXME and XXX comments in the project.

Runs only when this project is listed in `trusted_plugin_projects` in
~/.config/valarmind/config.toml (plugins are code from the repository).
"""

from __future__ import annotations

import re

from valarmind_tui.commands.registry import Command, CommandResult
from valarmind_tui.plugins.specs import hookimpl

MARKER = re.compile(r"\b(TODO|FIXME|XXX)\b[:\s]*(.*)")


async def _todos(session, args: str) -> CommandResult:  # noqa: ANN001 - a Session
    from valarmind_tui.safety.ignore import GitignoreWalker

    root = session.project_root
    rows = []
    for path in GitignoreWalker(root).walk_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, 1):
            match = MARKER.search(line)
            if match:
                rows.append(f"- `{rel}:{number}` {match.group(1)} {match.group(2).strip()}")
    return CommandResult("\n".join(rows) or "No TODO, FIXME or XXX found.")


@hookimpl
def register_commands(register) -> None:  # noqa: ANN001
    register(Command(name="todos", help="list TODO/FIXME/XXX comments", handler=_todos))
