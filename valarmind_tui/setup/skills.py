"""Agent Skills: folders with a `SKILL.md` (front matter `name`, `description`, optional
`allowed-tools`, `license`, `metadata`), the open format Claude Code, Codex, Gemini CLI and
OpenCode read.

Progressive disclosure: a `Skill` keeps name, description and where it is; its body is read
when the model calls the `skill` tool or the person types `/name`. `allowed-tools` is kept for
the report and pre-approves nothing: every call still goes through the gate and the mode."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.settings.trust.content import nested_agents_skills
from valarmind_tui.setup.claude_plugins import enabled_plugins
from valarmind_tui.setup.context_files import start_folders
from valarmind_tui.setup.front_matter import FrontMatterError, names_of, read_document, text_of
from valarmind_tui.setup.places import (
    UNTRUSTED,
    Place,
    codex_home,
    files_in,
    places,
    valarmind_user_dirs,
)
from valarmind_tui.setup.report import Found, Kind, Scope

KNOWN_KEYS = {"name", "description", "allowed-tools", "license", "metadata", "version",
              "compatibility", "model", "disable-model-invocation", "user-invocable",
              "argument-hint"}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
MAX_DESCRIPTION = 1024


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: Path
    """The skill's folder: `scripts/` and `references/` are read relative to it."""
    scope: Scope
    tool: str
    allowed_tools: tuple[str, ...] = ()
    model_invocable: bool = True
    """False for `disable-model-invocation: true`: only the person's `/name` uses it."""

    @property
    def path(self) -> Path:
        return self.folder / "SKILL.md"

    def body(self) -> str:
        """The instructions, read now (the file may have changed since the listing)."""
        return read_document(self.path).body


def skill_places(project_root: Path, home: Path, cwd: Path | None = None,
                 trusted: bool = False) -> list[Place]:
    """`.agents/skills` in every folder from `cwd` up to the root, the nearest first (Codex
    reads them so: a package's own skills beside the monorepo's); the others at the root.
    Below the root, only folders the trust fingerprint covers (git's files, not ignored)."""
    root = project_root.resolve()
    below = set(nested_agents_skills(root)) if cwd is not None and cwd.resolve() != root else set()
    chain = [(folder.relative_to(root) / ".agents" / "skills").as_posix()
             for folder in reversed(start_folders(root, cwd))]
    agents = [(rel, "agents") for rel in chain if rel == ".agents/skills" or rel in below]
    project = [(".valarmind/skills", "valarmind"), *agents,
               (".claude/skills", "claude"), (".gemini/skills", "gemini"),
               (".opencode/skills", "opencode"), (".opencode/skill", "opencode")]
    user = [(folder / "skills", "valarmind") for folder in valarmind_user_dirs(home)]
    user += [(home / ".agents" / "skills", "agents"), (home / ".claude" / "skills", "claude"),
            (codex_home(home) / "skills", "codex"), (home / ".gemini" / "skills", "gemini"),
            (home / ".config" / "opencode" / "skills", "opencode"),
            (home / ".config" / "opencode" / "skill", "opencode")]
    plugins = [Place(plugin.root / "skills", Scope.PLUGIN, "claude", plugin.root)
               for plugin in enabled_plugins(root, home, trusted)]
    return places(project_root, project, user) + plugins


def load_skills(project_root: Path, home: Path, trusted: bool, cwd: Path | None = None
                ) -> tuple[list[Skill], list[Found]]:
    """Every skill found, the first of a name kept (project before user, a folder nearer
    `cwd` before the root's), and a report row for each SKILL.md, loaded or not."""
    skills: dict[str, Skill] = {}
    report: list[Found] = []
    seen: set[Path] = set()
    for place in skill_places(project_root, home, cwd, trusted):
        for path in files_in(place, "*/SKILL.md"):
            if path.resolve() in seen:
                continue  # ~/.agents/skills linked into ~/.claude/skills: one skill
            seen.add(path.resolve())
            name = path.parent.name
            if place.scope is Scope.PROJECT and not trusted:
                report.append(Found(Kind.SKILL, name, path, place.scope, place.tool, False,
                                    UNTRUSTED))
                continue
            skill, row = _read(path, place)
            if skill is not None and skill.name in skills:
                first = skills[skill.name]
                row = Found(Kind.SKILL, skill.name, path, place.scope, place.tool, False,
                            f"name taken by {first.path}")
            elif skill is not None:
                skills[skill.name] = skill
            report.append(row)
    return list(skills.values()), report


def skill_folders(skills: list[Skill], home: Path) -> list[str]:
    """The person's own skill folders under `home`, relative to it: a sandboxed command gets
    them back read-only under the hidden HOME, so a skill's scripts run where it says they are
    (the rest of `~/.claude` and the like stays hidden)."""
    folders = []
    for skill in skills:
        if skill.scope in (Scope.USER, Scope.PLUGIN):  # a plugin's scripts too
            try:
                folders.append(str(skill.folder.relative_to(home)))
            except ValueError:
                continue  # outside HOME: not hidden in the first place
    return folders


def scan_skills(project_root: Path, home: Path, trusted: bool, cwd: Path | None = None
                ) -> list[Found]:
    return load_skills(project_root, home, trusted, cwd)[1]


def _read(path: Path, place: Place) -> tuple[Skill | None, Found]:
    folder_name = path.parent.name
    try:
        doc = read_document(path)
    except FrontMatterError as exc:
        return None, Found(Kind.SKILL, folder_name, path, place.scope, place.tool, False,
                           str(exc))
    name = text_of(doc.meta.get("name")) or folder_name
    if not NAME.match(name):
        return None, Found(Kind.SKILL, folder_name, path, place.scope, place.tool, False,
                           f"name {name!r} is not a usable name (letters, digits, - _ . :)")
    notes = []
    description = text_of(doc.meta.get("description"))
    if not description:
        notes.append("no description: the model is told only its name")
    elif len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
        notes.append(f"description cut to {MAX_DESCRIPTION} characters")
    unknown = sorted(set(doc.meta) - KNOWN_KEYS)
    if unknown:
        notes.append(f"keys not used: {', '.join(unknown)}")
    allowed = names_of(doc.meta.get("allowed-tools"))
    if allowed:
        notes.append("allowed-tools pre-approves nothing: calls ask as the mode says")
    invocable = str(doc.meta.get("disable-model-invocation", "")).lower() not in ("true", "yes")
    if not invocable:
        notes.append("disable-model-invocation: only /" + name + " uses it")
    skill = Skill(name, description, path.parent, place.scope, place.tool, allowed, invocable)
    return skill, Found(Kind.SKILL, name, path, place.scope, place.tool, True, "; ".join(notes))
