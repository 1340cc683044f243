"""Claude Code's permission rules in our rule syntax (safety/gate/rules.py reads the result).

    Bash(npm run test:*)        -> bash(npm run test:*)
    Bash(git *)                 -> bash(git:*)          (a trailing ` *` is Claude's newer prefix)
    Read(./.env)                -> read_*(.env)
    Edit(src/**)                -> edit_file(src/**), write_file(src/**)
    WebFetch(domain:example.com)-> web_fetch(domain:example.com)
    WebSearch                   -> web_search
    mcp__github                 -> mcp__github__*

Paths follow Claude's spelling: `//abs` is absolute, `~/x` under the home, `/x` under the folder
that holds the `.claude/` folder (the project, or the home for the user's file), `x` and `./x`
relative to the project (`./x` at its root, a bare name with no slash at any depth, as in
.gitignore). A
rule we cannot say (a `*` inside a command, a tool we do not have) is returned with the reason,
never widened or narrowed into something else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_RULE = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)

PATH_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": ("read_*",),
    "Edit": ("edit_file", "write_file"),
    "MultiEdit": ("edit_file",),
    "Write": ("write_file",),
    "Glob": ("glob",),
    "Grep": ("grep",),
    "LS": ("tree_view",),
}
"""Claude's file tools → ours (Claude's Edit rules cover every tool that edits a file)."""
NO_EQUIVALENT = frozenset({"NotebookEdit", "NotebookRead", "Task", "Agent",
                           "TodoWrite", "KillShell", "BashOutput", "SlashCommand", "Skill"})


@dataclass(frozen=True)
class Translated:
    """One Claude rule in our syntax: `rules` (several when Claude's tool is several of ours),
    or none and `reason` saying why it was left out."""

    source: str
    rules: tuple[str, ...] = ()
    reason: str = ""


def translate_rule(text: str, project_root: Path, base: Path, home: Path) -> Translated:
    """`text` in Claude's syntax as our rule strings; `base` is the folder `/x` is under."""
    match = _RULE.match(text)
    if match is None:
        return Translated(text, reason="not a rule in Claude's `Tool(specifier)` syntax")
    tool, spec = match.group(1), (match.group(2) or "").strip()
    if tool.startswith("mcp__"):
        if spec:
            return Translated(text, reason="an MCP rule takes no specifier")
        return Translated(text, (tool if tool.count("__") >= 2 else f"{tool}__*",))
    if tool == "Bash":
        return _bash(text, spec)
    if tool == "WebSearch":
        if not spec:
            return Translated(text, ("web_search",))
        return Translated(text, reason="WebSearch takes no argument here")
    if tool == "WebFetch":
        if not spec:
            return Translated(text, ("web_fetch",))
        if spec.startswith("domain:") and spec[7:].strip():
            return Translated(text, (f"web_fetch(domain:{spec[7:].strip().lower()})",))
        return Translated(text, reason="WebFetch takes only `domain:host`")
    if tool in PATH_TOOLS:
        if not spec:
            return Translated(text, PATH_TOOLS[tool])
        glob = _path_glob(spec, project_root, base, home)
        if glob is None:
            return Translated(text, reason=f"the path {spec!r} cannot be read")
        return Translated(text, tuple(f"{ours}({glob})" for ours in PATH_TOOLS[tool]))
    if tool in NO_EQUIVALENT:
        return Translated(text, reason=f"ValarMind has no {tool} tool")
    return Translated(text, reason=f"unknown tool {tool!r}")


def _bash(text: str, spec: str) -> Translated:
    if not spec or spec == "*":
        return Translated(text, ("bash",))
    head = spec[:-2] if spec.endswith((":*", " *")) else None
    if "*" in (head if head is not None else spec):
        return Translated(text, reason="a `*` inside a command cannot be matched by our rules "
                                       "(only a prefix ending in `:*` or ` *`)")
    return Translated(text, (f"bash({head.strip()}:*)" if head is not None else f"bash({spec})",))


def _path_glob(spec: str, project_root: Path, base: Path, home: Path) -> str | None:
    """Claude's path pattern as a glob over project-relative paths (absolute outside it)."""
    if "\x00" in spec:
        return None
    if spec.startswith("//"):
        absolute = "/" + spec[2:].lstrip("/")
    elif spec.startswith("~/"):
        absolute = f"{home.as_posix().rstrip('/')}/{spec[2:]}"
    elif spec.startswith("/"):
        absolute = f"{base.as_posix().rstrip('/')}/{spec.lstrip('/')}"
    elif spec.startswith("./"):
        return spec[2:] or "**"
    elif "/" not in spec.rstrip("/"):
        return f"**/{spec}"  # a bare name: at any depth, as in .gitignore
    else:
        return spec
    root = project_root.as_posix().rstrip("/")
    if absolute == root:
        return "**"
    if absolute.startswith(root + "/"):
        return absolute[len(root) + 1:]
    return absolute
