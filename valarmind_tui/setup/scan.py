"""One scan of a person's setup, for `valarmind setup` and `/setup`: every format's scanner,
their rows in one screen (or JSON for scripts).

A scanner is `scan_<format>(project_root, home, trusted) -> list[Found]`; each reads where its
format lives and says, row by row, what loaded and what did not, and why.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from valarmind_tui.core.visible_text import visible
from valarmind_tui.settings.trust.decision import decide
from valarmind_tui.setup.claude_settings import scan_claude_settings
from valarmind_tui.setup.commands import scan_commands
from valarmind_tui.setup.context_files import scan_context_files
from valarmind_tui.setup.report import Found, Kind
from valarmind_tui.setup.skills import scan_skills
from valarmind_tui.setup.subagents import scan_subagents

ROWS_PER_KIND = 8
"""Rows shown per kind on the screen (what did not load first); --json has them all."""


def scan(project_root: Path, home: Path, trusted: bool, cwd: Path | None = None, *,
         builtin_commands: Collection[str] = (), builtin_agents: Collection[str] = ()
         ) -> list[Found]:
    """Every format's rows: Claude's settings, skills (`.agents/skills` from `cwd` up to the
    root), commands and subagents (against the names ValarMind's own commands and agents hold:
    a clash moves or leaves out the file's), context files (down to `cwd`)."""
    root = project_root.resolve()
    return [*scan_claude_settings(root, home, trusted),
            *scan_skills(root, home, trusted, cwd),
            *scan_commands(root, home, trusted, builtin=builtin_commands),
            *scan_subagents(root, home, trusted, ours=builtin_agents),
            *scan_context_files(root, home, trusted, cwd)]


def report(project_root: Path, home: Path, trust_flag: bool = False,
           as_json_rows: bool = False, cwd: Path | None = None, *,
           builtin_commands: Collection[str] = (), builtin_agents: Collection[str] = ()) -> str:
    """The scan as `valarmind setup` prints it, one screen or a JSON array, for the folder's
    trust as a run would decide it (`trust_flag`: --trust-project)."""
    trusted = decide(project_root, flag=trust_flag).trusted
    found = scan(project_root, home, trusted, cwd, builtin_commands=builtin_commands,
                 builtin_agents=builtin_agents)
    if as_json_rows:
        return json.dumps(as_json(found), indent=2)
    return render(found, project_root, home, trusted)


def render(found: list[Found], project_root: Path, home: Path, trusted: bool) -> str:
    """One screen: per kind, how many loaded, then the rows (what was skipped first)."""
    trust = "trusted" if trusted else "not trusted (its own allow rules and hooks wait)"
    lines = [f"Setup found for {visible(str(project_root))}: folder {trust}"]
    if not found:
        lines.append("nothing: no settings.json, context files, skills, commands or agents "
                     "from Claude Code, Codex, Gemini CLI or OpenCode")
    for kind in Kind:
        rows = [f for f in found if f.kind is kind]
        if not rows:
            continue
        loaded = sum(f.loaded for f in rows)
        lines.append(f"\n{kind.value}s: {loaded} of {len(rows)} loaded")
        ordered = sorted(rows, key=lambda f: f.loaded)
        for row in ordered[:ROWS_PER_KIND]:
            lines.append("  " + _row(row, project_root, home))
        if len(rows) > ROWS_PER_KIND:
            lines.append(f"  ... and {len(rows) - ROWS_PER_KIND} more "
                         "(valarmind setup --json lists every one)")
    return "\n".join(lines)


def _row(row: Found, project_root: Path, home: Path) -> str:
    mark = "ok" if row.loaded else "--"
    said = f": {row.reason}" if row.reason else ""
    where = shown_path(row.source, project_root, home)
    return visible(f"{mark} {row.name}  [{row.scope.value}, {where}]{said}")


def shown_path(path: Path, project_root: Path, home: Path) -> str:
    """A path as the person reads it: project-relative, or under `~`."""
    for base, prefix in ((project_root.resolve(), ""), (home.resolve(), "~/")):
        try:
            return prefix + path.resolve().relative_to(base).as_posix()
        except (ValueError, OSError):
            continue
    return str(path)


def as_json(found: list[Found]) -> list[dict[str, Any]]:
    """The rows for scripts: kind, name, source, scope, tool, loaded, reason."""
    return [{"kind": f.kind.value, "name": f.name, "source": str(f.source),
             "scope": f.scope.value, "tool": f.tool, "loaded": f.loaded, "reason": f.reason}
            for f in found]
