"""Subagents written for Claude Code (`.claude/agents/*.md`), OpenCode (`.opencode/agents/`) and
Gemini CLI (`.gemini/agents/`), read leniently: a key we do not use (`color`, `hooks`,
`permissionMode`, `memory`...) is one note in the report, never a reason to skip the file.

The records keep the tool names as written; the agents package maps them to ours."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from valarmind_tui.setup.front_matter import FrontMatterError, names_of, read_document, text_of
from valarmind_tui.setup.places import UNTRUSTED, Place, files_in, places
from valarmind_tui.setup.report import Found, Kind, Scope

USED_KEYS = {"name", "description", "tools", "disallowedTools", "disallowed-tools", "model",
             "skills", "max_turns", "maxTurns", "mode"}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class SubagentFile:
    name: str
    description: str
    prompt: str
    path: Path
    scope: Scope
    tool: str
    tools: tuple[str, ...] | None = None
    """As written; None when the file has no tools line (a general-purpose agent's tools)."""
    disallowed: tuple[str, ...] = ()
    model: str = ""
    skills: tuple[str, ...] = ()
    max_turns: int | None = None
    ignored_keys: tuple[str, ...] = ()


def subagent_places(project_root: Path, home: Path) -> list[Place]:
    project = [(".claude/agents", "claude"), (".opencode/agents", "opencode"),
               (".opencode/agent", "opencode"), (".gemini/agents", "gemini")]
    user = [(home / ".claude" / "agents", "claude"),
            (home / ".config" / "opencode" / "agents", "opencode"),
            (home / ".config" / "opencode" / "agent", "opencode"),
            (home / ".gemini" / "agents", "gemini")]
    return places(project_root, project, user)


def load_subagents(
    project_root: Path, home: Path, trusted: bool
) -> tuple[list[SubagentFile], list[Found]]:
    """Every subagent file read (project first; a name twice keeps the first), with a report
    row each. Clashes with our own agents are the registry's to settle."""
    agents: dict[str, SubagentFile] = {}
    report: list[Found] = []
    for place in subagent_places(project_root, home):
        for path in files_in(place, "**/*.md"):
            if place.scope is Scope.PROJECT and not trusted:
                report.append(Found(Kind.SUBAGENT, path.stem, path, place.scope, place.tool,
                                    False, UNTRUSTED))
                continue
            agent, row = _read(path, place)
            if agent is not None and agent.name in agents:
                row = Found(Kind.SUBAGENT, agent.name, path, place.scope, place.tool, False,
                            f"name taken by {agents[agent.name].path}")
            elif agent is not None:
                agents[agent.name] = agent
            report.append(row)
    return list(agents.values()), report


def scan_subagents(
    project_root: Path, home: Path, trusted: bool, *, ours: Collection[str] = ()
) -> list[Found]:
    """The report rows; a name in `ours` (the registry's own agents) is left out, as
    AgentRegistry does."""
    rows = load_subagents(project_root, home, trusted)[1]
    return [replace(r, loaded=False, reason=f"name taken by our {r.name} agent")
            if r.loaded and r.name in ours else r for r in rows]


def _read(path: Path, place: Place) -> tuple[SubagentFile | None, Found]:
    def refused(name: str, reason: str) -> tuple[None, Found]:
        return None, Found(Kind.SUBAGENT, name, path, place.scope, place.tool, False, reason)

    try:
        doc = read_document(path)
    except FrontMatterError as exc:
        return refused(path.stem, str(exc))
    meta = doc.meta
    name = text_of(meta.get("name")) or path.stem
    if not NAME.match(name):
        return refused(name, f"name {name!r} is not a usable agent name")
    if not doc.body:
        return refused(name, "the file has no prompt text")
    ignored = tuple(sorted(set(meta) - USED_KEYS))
    notes = [f"keys not used: {', '.join(ignored)}"] if ignored else []
    if str(meta.get("mode", "")) == "primary":
        notes.append("an OpenCode primary agent: offered as a specialist here")
    max_turns = meta.get("max_turns", meta.get("maxTurns"))
    raw_tools = meta.get("tools")
    disallowed = names_of(meta.get("disallowedTools", meta.get("disallowed-tools")))
    tools = None if raw_tools is None else names_of(raw_tools)
    if isinstance(raw_tools, dict):  # OpenCode: {write: false} switches tools off, not on
        tools = None
        disallowed += tuple(str(k) for k, on in raw_tools.items() if not on)
    agent = SubagentFile(
        name, text_of(meta.get("description")), doc.body, path, place.scope, place.tool,
        tools=tools, disallowed=disallowed,
        model=text_of(meta.get("model")), skills=names_of(meta.get("skills")),
        max_turns=max_turns if isinstance(max_turns, int) and max_turns > 0 else None,
        ignored_keys=ignored,
    )
    return agent, Found(Kind.SUBAGENT, name, path, place.scope, place.tool, True,
                        "; ".join(notes))
