"""Agent definitions by name: built-in `.md` files, then user, then project overrides.

Load order (later wins by name): `agents/builtin/*.md`, runner profiles (seed 000's
`external-agents.json` and config `[profiles.*]`), `~/.config/valarmind/agents/*.md`,
`.valarmind/agents/*.md`. A profile named like an agent only changes its model and turns.
Then the subagents of Claude Code, OpenCode and Gemini CLI (`agents/imported.py`), which never
take the name of one of those: a clash leaves the file out, with a note.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from valarmind_tui.agents.imported import spec_from_file
from valarmind_tui.agents.profiles import Profile, all_profiles
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.context.project_commands import (
    ProjectCommand,
    commands_of,
    detect_commands,
    render_commands,
)
from valarmind_tui.core.errors import ConfigError, UsageError
from valarmind_tui.core.safe_files import read_regular_text
from valarmind_tui.core.user_dirs import user_config_dir
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.settings.config import PROJECT_DIR, Settings
from valarmind_tui.setup.front_matter import safe_loader
from valarmind_tui.setup.subagents import SubagentFile, load_subagents

_KEYS = {
    "name", "description", "tools", "permissions", "timeout", "model", "max_turns",
    "exclude_project_context", "result", "model_suffix",
}
_PERMISSION_KEYS = {"read", "write", "execute", "web", "spawn", "write_globs", "execute_allow"}
PROFILE_TOOLS = ("read_file", "read_many_files", "glob", "grep", "tree_view", "git_diff")
PROFILE_PROMPT = (
    "You are an external reviewer agent working read-only in the user's repository. Use the "
    "tools to read what you need and answer the task precisely, citing files and lines."
)


class AgentRegistry:
    """The agents a session knows, by name."""

    def __init__(self, specs: dict[str, AgentSpec] | None = None) -> None:
        self._specs: dict[str, AgentSpec] = dict(specs or {})
        self.notes: list[str] = []
        """What was left out of other tools' subagents, one line each (file first)."""

    @classmethod
    def load(
        cls, project_root: Path | None = None, settings: Settings | None = None, *,
        commands: list[ProjectCommand] | None = None, home: Path | None = None,
    ) -> AgentRegistry:
        """Built-ins, profiles, user and project definitions; `detected` commands resolved;
        with `home`, the subagents of other tools found under it and in the project."""
        if commands is None:
            commands = detect_commands(project_root) if project_root else []
        registry = cls()
        for path in _builtin_files():
            registry.add(parse_agent_file(path, source="builtin", commands=commands))
        if settings is not None and project_root is not None:
            for profile in all_profiles(settings, project_root).values():
                registry._add_profile(profile)
        dirs = [(user_config_dir() / "agents", "user")]
        if project_root is not None and settings is not None and settings.project_trusted:
            dirs.append((project_root / PROJECT_DIR / "agents", "project"))
        for folder, source in dirs:
            for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
                registry.add(parse_agent_file(path, source=source, commands=commands))
        if home is not None and project_root is not None:
            trusted = settings is not None and settings.project_trusted
            registry._add_imported(load_subagents(project_root, home, trusted)[0], settings)
        return registry

    def _add_imported(self, agents: list[SubagentFile], settings: Settings | None) -> None:
        for agent in agents:
            if agent.name in self._specs:
                taken = self._specs[agent.name].source
                self.notes.append(f"{agent.path}: left out, the name {agent.name!r} is taken by "
                                  f"a {taken} agent")
                continue
            spec, notes = spec_from_file(agent, settings)
            self._specs[spec.name] = spec
            self.notes += [f"{agent.path}: {note}" for note in notes]

    def add(self, spec: AgentSpec) -> None:
        """Add or replace by name; a project's file may redefine an agent's prompt and
        tools, never the model or endpoint it uses (those are the user's)."""
        existing = self._specs.get(spec.name)
        if spec.source == "project" and existing is not None and existing.source != "project":
            spec = replace(spec, model=existing.model, api_base=existing.api_base,
                           api_key_env=existing.api_key_env)
        self._specs[spec.name] = spec

    def get(self, name: str) -> AgentSpec:
        spec = self._specs.get(name)
        if spec is None:
            known = ", ".join(sorted(self._specs)) or "none"
            raise UsageError(f"unknown agent {name!r}. Known agents: {known}.")
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> list[str]:
        return sorted(self._specs)

    def all(self) -> list[AgentSpec]:
        return [self._specs[n] for n in self.names()]

    def specialists(self) -> list[AgentSpec]:
        """Agents the orchestrator may delegate to."""
        return [s for s in self.all() if s.name != "orchestrator"]

    def render(self) -> str:
        """A markdown table for /agents."""
        rows = ["| agent | permissions | timeout | source | description |", "|---|---|---|---|---|"]
        for s in self.all():
            p = s.permissions
            flags = "".join(
                c if on else "-" for c, on in
                zip("rwxWs", (p.read, p.write, p.execute, p.web, p.spawn), strict=True)
            )
            timeout = f"{s.timeout_s:g}/{s.max_timeout_s:g}s"
            rows.append(f"| {s.name} | `{flags}` | {timeout} | {s.source} | {s.description} |")
        rows.append("\npermissions: r read, w write, x execute commands, W web, s spawn agents "
                    "(- not allowed); timeout: default/maximum")
        return "\n".join(rows)

    def _add_profile(self, profile: Profile) -> None:
        existing = self._specs.get(profile.name)
        if existing is not None and profile.from_repository:
            return  # a repository's external-agents.json never changes an agent we ship
        if existing is not None:
            self._specs[profile.name] = replace(
                existing, model=profile.model or existing.model, max_turns=profile.max_turns,
                api_base=profile.api_base, api_key_env=profile.api_key_env,
            )
            return
        tools = list(profile.tools or PROFILE_TOOLS)
        for server in profile.mcp_servers:
            names = profile.tool_overrides.get(server)
            tools += [f"mcp__{server}__{t}" for t in names] if names else [f"mcp__{server}__*"]
        self._specs[profile.name] = AgentSpec(
            name=profile.name, description=f"runner profile {profile.name}",
            system_prompt=PROFILE_PROMPT, tools=tuple(tools), permissions=AgentPermissions(),
            model=profile.model, max_turns=profile.max_turns, source="profile",
            api_base=profile.api_base, api_key_env=profile.api_key_env,
        )


def builtin_agent_names() -> list[str]:
    """The names of the agents ValarMind ships (a file of another tool may not take one)."""
    return [path.stem for path in _builtin_files()]


def _builtin_files() -> list[Path]:
    folder = resources.files("valarmind_tui.agents").joinpath("builtin")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".md"))


def split_front_matter(text: str, path: Path) -> tuple[str, str, int]:
    """(front matter, body, line number where the front matter starts)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ConfigError("an agent file must start with a '---' front matter block", file=path,
                          line=1)
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            return "\n".join(lines[1 : number - 1]), "\n".join(lines[number:]).strip(), 2
    raise ConfigError("the front matter block is not closed with '---'", file=path, line=1)


def parse_agent_file(
    path: Path, *, source: str = "project", commands: list[ProjectCommand] | None = None
) -> AgentSpec:
    """One agent definition; bad front matter is a ConfigError naming the file and line."""
    import yaml

    try:
        text = read_regular_text(path)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=path) from None
    front, body, first_line = split_front_matter(text, path)
    try:
        data = yaml.load(front, Loader=safe_loader(yaml)) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"invalid front matter: {problem}", file=path, line=line) from None
    if not isinstance(data, dict):
        raise ConfigError("front matter must be 'key: value' lines", file=path, line=first_line)
    return _spec_from(data, body, path, source, commands or [])


def _spec_from(
    data: dict[str, Any], body: str, path: Path, source: str, commands: list[ProjectCommand]
) -> AgentSpec:
    def fail(message: str, key: str) -> ConfigError:
        return ConfigError(message, file=path, line=_key_line(path, key), key=key)

    unknown = set(data) - _KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise fail(f"unknown key; known keys: {', '.join(sorted(_KEYS))}", key)
    name = data.get("name") or path.stem
    if not isinstance(name, str):
        raise fail("name must be a string", "name")
    tools = data.get("tools", ["*"])
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise fail("tools must be a list of tool names or glob patterns", "tools")
    permissions = _permissions(data.get("permissions", {}), commands, fail)
    default_s, max_s = _timeouts(data.get("timeout", {}), fail)
    if "{project_commands}" in body:
        body = body.replace("{project_commands}", render_commands(commands))
    try:
        max_turns = int(data.get("max_turns", 50))
    except (TypeError, ValueError):
        raise fail("max_turns must be a whole number", "max_turns") from None
    return AgentSpec(
        name=name, description=str(data.get("description", "")), system_prompt=body,
        tools=tuple(tools), permissions=permissions, timeout_s=default_s, max_timeout_s=max_s,
        model=data.get("model"), max_turns=max_turns,
        exclude_project_context=bool(data.get("exclude_project_context", False)),
        source=source, result=data.get("result"), model_suffix=data.get("model_suffix"),
        path=str(path),
    )


def _permissions(raw: Any, commands: list[ProjectCommand], fail: Any) -> AgentPermissions:
    if not isinstance(raw, dict):
        raise fail("permissions must be a mapping (read/write/execute/web/spawn)", "permissions")
    unknown = set(raw) - _PERMISSION_KEYS
    if unknown:
        raise fail(f"unknown permission {sorted(unknown)[0]!r}", "permissions")
    flags = {k: bool(raw.get(k, k == "read")) for k in ("read", "write", "execute", "web", "spawn")}
    globs = raw.get("write_globs")
    if globs is not None and not (
        isinstance(globs, list) and all(isinstance(g, str) for g in globs)
    ):
        raise fail("write_globs must be a list of globs", "write_globs")
    allow = raw.get("execute_allow")
    if isinstance(allow, str):
        if allow == "detected":
            allow = list(commands_of(commands))
        elif allow.startswith("detected:"):
            # why the ignore below: commands is a list of str or one string
            allow = list(commands_of(commands, allow.split(":", 1)[1]))  # type: ignore[arg-type]  # why: above
        else:
            raise fail("execute_allow must be a list of commands, 'detected' or "
                       "'detected:<kind>'", "execute_allow")
    elif allow is not None and not (
        isinstance(allow, list) and all(isinstance(c, str) for c in allow)
    ):
        raise fail("execute_allow must be a list of commands", "execute_allow")
    return AgentPermissions(
        **flags, write_globs=tuple(globs) if globs is not None else None,
        execute_allow=tuple(allow) if allow is not None else None,
    )


def _timeouts(raw: Any, fail: Any) -> tuple[float, float]:
    if isinstance(raw, int | float):
        return float(raw), max(float(raw), 900.0)
    if not isinstance(raw, dict):
        raise fail("timeout must be a number or {default: S, max: S}", "timeout")
    try:
        default_s = float(raw.get("default", 300))
        max_s = float(raw.get("max", max(default_s, 900)))
    except (TypeError, ValueError):
        raise fail("timeout values must be numbers of seconds", "timeout") from None
    if default_s <= 0 or max_s < default_s:
        raise fail("timeout needs 0 < default <= max", "timeout")
    return default_s, max_s


def _key_line(path: Path, key: str) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith(f"{key}:") or stripped.startswith(f"{key} :"):
            return number
    return None
