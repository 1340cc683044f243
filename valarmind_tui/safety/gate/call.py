"""One tool call as the gate sees it: its risk, paths, parsed command, protected writes, intents.

`describe_call` does the looking (resolving paths, parsing bash with safety.shell) so the gate's
pipeline only decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from valarmind_tui.core.errors import PathOutsideProject
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.rules import CallSubject, Rule
from valarmind_tui.safety.paths import is_sensitive, protected_by, relative, resolve_in_project
from valarmind_tui.safety.shell.command import ParsedCommand, command_intents, parse_command
from valarmind_tui.safety.shell.writes import git_config_write, written_paths

DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
"""Redirection targets that are not files."""
_INSTANCE = re.compile(r"(?:[-#:.]\d+)+$")


class GatedTool(Protocol):
    """What the gate needs of a tool (tools.base.Tool has it)."""

    # read-only: a Tool declares them as class variables
    @property
    def name(self) -> str: ...
    @property
    def risk(self) -> Any: ...
    @property
    def path_params(self) -> tuple[str, ...]: ...

    async def preview(self, params: Any, ctx: Any) -> Any: ...


@dataclass
class Call:
    """One tool call as the gate sees it."""

    tool: GatedTool
    risk: str
    agent_id: str
    subject: CallSubject
    outside: str | None = None
    sensitive: tuple[str, ...] = ()
    protected: tuple[tuple[str, str], ...] = ()
    """(what is written, the protected pattern or git verb) for each protected write."""
    parsed: ParsedCommand | None = None
    """The bash command split into simple commands (execute tools only)."""
    intents: tuple[str, ...] = field(default_factory=tuple)
    """What the call is trying to do, for escalation: verbs (`rm`, `git push`) and paths."""
    permissions: AgentPermissions | None = None
    """The calling agent's permissions (set by the gate), for re-checking changed input."""
    appealed_rule: Rule | None = None
    """The deny rule an appeal overturned for this very call: the person decides (the gate)."""
    network: bool = False
    """A command that asks for the network (`network: true`): no mode lets it through alone."""

    @property
    def kind(self) -> str:
        """The agent kind: `code-2`, `code#3` → `code`."""
        return agent_kind(self.agent_id)

    @property
    def unparseable(self) -> list[str]:
        return self.parsed.unparseable if self.parsed is not None else []


def agent_kind(agent_id: str) -> str:
    """Specialist instances are numbered by the Delegator (`code-1`); the kind drops that."""
    return _INSTANCE.sub("", agent_id) or agent_id


def describe_call(root: Path, tool: GatedTool, params: Any, ctx: Any) -> Call:
    risk = str(getattr(tool.risk, "value", tool.risk))
    agent_id = str(getattr(ctx, "agent_id", "main"))
    paths: list[str] = []
    outside = None
    for value in _path_values(tool, params):
        try:
            paths.append(relative(root, resolve_in_project(root, value)))
        except PathOutsideProject as exc:
            outside = str(exc)
        except (ValueError, OSError) as exc:  # a NUL byte, a name too long...
            outside = f"{value[:200]!r} is not a usable path ({exc}); nothing was done."
    command = getattr(params, "command", None) if risk == "execute" else None
    command = command if isinstance(command, str) else None
    call = Call(tool, risk, agent_id,
                CallSubject(tool.name, command, tuple(paths), _domain(risk, params)), outside)
    call.network = risk == "execute" and getattr(params, "network", False) is True
    sensitive = [p for p in paths if is_sensitive(p)]
    protected: list[tuple[str, str]] = []
    if risk == "write":
        protected = [(p, rule) for p in paths if (rule := protected_by(p)) is not None]
    intents = [f"path {p}" for p in paths]
    if command is not None:
        call.parsed = parse_command(command)
        outside = _command_writes(root, call.parsed, sensitive, protected) or outside
        intents = command_intents(call.parsed) + [f"path {p}" for p, _ in protected]
    call.outside = outside
    call.sensitive = tuple(dict.fromkeys(sensitive))
    call.protected = tuple(dict.fromkeys(protected))
    call.intents = tuple(dict.fromkeys(intents)) or (f"tool {tool.name}",)
    return call


def _command_writes(
    root: Path, parsed: ParsedCommand, sensitive: list[str], protected: list[tuple[str, str]],
) -> str | None:
    """Check what a command writes: redirections (outside the project is refused) and the
    path arguments of writing verbs (protected or sensitive). Returns the refusal, if any."""
    refusal = None
    for target in parsed.writes:
        if target in DEVICES or target.startswith("/dev/fd/"):
            continue
        try:
            rel = relative(root, resolve_in_project(root, target))
        except PathOutsideProject as exc:
            refusal = refusal or f"The command writes to a file outside the project: {exc}"
            continue
        except (ValueError, OSError) as exc:
            refusal = refusal or (
                f"The command writes to {target[:200]!r}, not a usable path ({exc}).")
            continue
        _classify(rel, sensitive, protected)
    for cmd in parsed.commands:
        verb = git_config_write(cmd)
        if verb is not None:
            protected.append((cmd.text, f"{verb} (.git/config)"))
        for arg in written_paths(cmd):
            if "://" in arg:
                continue
            try:
                rel = relative(root, resolve_in_project(root, arg))
            except (PathOutsideProject, ValueError, OSError):  # outside: the sandbox's business
                continue
            _classify(rel, sensitive, protected)
    return refusal


def _classify(rel: str, sensitive: list[str], protected: list[tuple[str, str]]) -> None:
    if is_sensitive(rel):
        sensitive.append(rel)
    rule = protected_by(rel)
    if rule is not None:
        protected.append((rel, rule))


def _path_values(tool: GatedTool, params: Any) -> list[str]:
    values: list[str] = []
    for name in getattr(tool, "path_params", ()):
        value = getattr(params, name, None)
        if isinstance(value, str | Path):
            values.append(str(value))
        elif isinstance(value, list | tuple):
            values += [str(v) for v in value if isinstance(v, str | Path)]
    return values


def _domain(risk: str, params: Any) -> str | None:
    """The host a web call reaches, for `web_fetch(domain:...)` rules."""
    url = getattr(params, "url", None) if risk == "web" else None
    if not isinstance(url, str):
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.lower() if host else None
