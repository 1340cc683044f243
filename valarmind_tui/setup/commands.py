"""Custom slash commands: Markdown prompts (Claude Code, OpenCode, Codex's prompts, ours) and
Gemini CLI's TOML, read where their authors put them.

A subfolder is a namespace (`git/fix.toml` is `/git:fix`); Codex's prompts are `/prompts:name`.
What a command's text does when it runs (arguments, inlined command output and files) is
`command_text.py`; registering and running them is the commands package's."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from valarmind_tui.core.safe_files import read_regular_text
from valarmind_tui.setup.front_matter import (
    FrontMatterError,
    hint_of,
    names_of,
    read_document,
    text_of,
)
from valarmind_tui.setup.places import (
    UNTRUSTED,
    Place,
    codex_home,
    files_in,
    places,
    valarmind_user_dirs,
)
from valarmind_tui.setup.report import Found, Kind, Scope

KNOWN_KEYS = {"description", "argument-hint", "allowed-tools", "model",
              "disable-model-invocation", "agent", "subtask"}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    """Without the slash, namespaces joined by `:`."""
    description: str
    template: str
    path: Path
    scope: Scope
    tool: str
    syntax: str = "markdown"
    """`markdown` ($ARGUMENTS, $1.., !`cmd`, @path) or `gemini` ({{args}}, !{cmd}, @{path})."""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str = ""


def command_places(project_root: Path, home: Path) -> list[tuple[Place, str]]:
    """Each folder with the glob its commands match."""
    project = [(".valarmind/commands", "valarmind"), (".claude/commands", "claude"),
               (".opencode/commands", "opencode"), (".opencode/command", "opencode"),
               (".gemini/commands", "gemini")]
    user = [(folder / "commands", "valarmind") for folder in valarmind_user_dirs(home)]
    user += [(home / ".claude" / "commands", "claude"),
             (home / ".config" / "opencode" / "commands", "opencode"),
             (home / ".config" / "opencode" / "command", "opencode"),
             (home / ".gemini" / "commands", "gemini"), (codex_home(home) / "prompts", "codex")]
    found = places(project_root, project, user)
    return [(p, "**/*.toml" if p.tool == "gemini" else
             "*.md" if p.tool == "codex" else "**/*.md") for p in found]


def load_commands(
    project_root: Path, home: Path, trusted: bool, *, builtin: Collection[str] = ()
) -> tuple[list[CustomCommand], list[Found]]:
    """Every command found (a name twice: the first kept, project before user) and a report
    row per file. A name in `builtin` (the registry's) is noted as moved to `/scope:name`: the
    registry does the moving (commands/custom.py)."""
    commands: dict[str, CustomCommand] = {}
    report: list[Found] = []
    for place, pattern in command_places(project_root, home):
        for path in files_in(place, pattern):
            name = command_name(path, place)
            if place.scope is Scope.PROJECT and not trusted:
                report.append(Found(Kind.COMMAND, name, path, place.scope, place.tool, False,
                                    UNTRUSTED))
                continue
            command, row = _read(path, place, name)
            if command is not None and command.name in commands:
                row = Found(Kind.COMMAND, name, path, place.scope, place.tool, False,
                            f"name taken by {commands[command.name].path}")
            elif command is not None:
                commands[command.name] = command
                if command.name in builtin:
                    moved = f"/{command.scope.value}:{command.name}"
                    note = f"the built-in /{command.name} keeps its name: this one is {moved}"
                    row = replace(row, reason="; ".join(r for r in (row.reason, note) if r))
            report.append(row)
    return list(commands.values()), report


def scan_commands(
    project_root: Path, home: Path, trusted: bool, *, builtin: Collection[str] = ()
) -> list[Found]:
    return load_commands(project_root, home, trusted, builtin=builtin)[1]


def command_name(path: Path, place: Place) -> str:
    parts = list(path.relative_to(place.folder).with_suffix("").parts)
    if place.tool == "codex":
        parts.insert(0, "prompts")
    return ":".join(parts)


def _read(path: Path, place: Place, name: str) -> tuple[CustomCommand | None, Found]:
    def refused(reason: str) -> tuple[None, Found]:
        return None, Found(Kind.COMMAND, name, path, place.scope, place.tool, False, reason)

    if not NAME.match(name):
        return refused(f"name {name!r} is not a usable command name")
    if place.tool == "gemini":
        return _read_toml(path, place, name)
    try:
        doc = read_document(path)
    except FrontMatterError as exc:
        return refused(str(exc))
    if not doc.body:
        return refused("the file has no prompt text")
    unknown = sorted(set(doc.meta) - KNOWN_KEYS)
    notes = [f"keys not used: {', '.join(unknown)}"] if unknown else []
    model = text_of(doc.meta.get("model"))
    if model:
        notes.append(f"model {model!r}: used for its turn when it is one of your [aliases]"
                     + (" or a provider/model" if place.scope is Scope.USER else ""))
    if doc.meta.get("allowed-tools"):
        notes.append("allowed-tools pre-approves nothing: calls ask as the mode says")
    command = CustomCommand(
        name, text_of(doc.meta.get("description")) or _first_line(doc.body), doc.body, path,
        place.scope, place.tool, argument_hint=hint_of(doc.meta.get("argument-hint")),
        allowed_tools=names_of(doc.meta.get("allowed-tools")), model=model,
    )
    return command, Found(Kind.COMMAND, name, path, place.scope, place.tool, True,
                          "; ".join(notes))


def _read_toml(path: Path, place: Place, name: str) -> tuple[CustomCommand | None, Found]:
    def refused(reason: str) -> tuple[None, Found]:
        return None, Found(Kind.COMMAND, name, path, place.scope, place.tool, False, reason)

    try:
        data = tomllib.loads(read_regular_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        return refused(f"{path}: cannot read: {exc}")
    except tomllib.TOMLDecodeError as exc:
        return refused(f"{path}: {exc}")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return refused(f"{path}: no 'prompt' string")
    unknown = sorted(set(data) - {"prompt", "description"})
    command = CustomCommand(name, text_of(data.get("description")) or _first_line(prompt),
                            prompt.strip(), path, place.scope, place.tool, syntax="gemini")
    return command, Found(Kind.COMMAND, name, path, place.scope, place.tool, True,
                          f"keys not used: {', '.join(unknown)}" if unknown else "")


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:100]
