"""Claude Code's `settings.json`: permission rules, hooks and the `env` block, read where they are.

    ~/.claude/settings.json            the person's own (user)
    .claude/settings.json              the project's, shared in the repository
    .claude/settings.local.json        the project's, personal (git-ignored by Claude)

What a repository may do with them: its deny and ask rules always count (they only tighten);
its allow rules, hooks and `env` only in a trusted folder. A project's `env` reaches only the
hooks of its own files, so a repository cannot change what the person's hooks run (PATH). Keys
that would loosen the person's rules or pick a mode (`defaultMode`, `additionalDirectories`,
`apiKeyHelper`...) are never read: each is a note in the report. An unknown hook event skips
that entry with a note; a broken file is one note naming it and loses nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from valarmind_tui.settings.sections import HOOK_EVENTS
from valarmind_tui.setup.claude_plugins import enabled_names, installed_plugins, plugin_hooks_table
from valarmind_tui.setup.claude_rules import translate_rule
from valarmind_tui.setup.json_files import read_json_object
from valarmind_tui.setup.report import Found, Kind, Scope

RULE_LISTS = ("deny", "ask", "allow")
KNOWN_KEYS = frozenset({"permissions", "hooks", "env", "enabledPlugins", "$schema"})
"""The keys we read; any other is a note (`model`, `statusLine`... are Claude's alone)."""


@dataclass(frozen=True)
class ClaudeHook:
    """One handler of a settings file: a command, or a prompt for the model."""

    event: str
    matcher: str
    command: str
    """The shell command, or the prompt of a `type: "prompt"` handler."""
    timeout: float | None
    source: Path
    env: tuple[tuple[str, str], ...] = ()
    """The `env` block of the same file (the user's reaches every hook: see `claude_setup`)."""
    kind: Literal["command", "prompt"] = "command"


@dataclass
class ClaudeSetup:
    """What the settings files say, already judged by trust."""

    user_rules: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in RULE_LISTS})
    """Our rule strings from the person's own file: they may name protected paths."""
    project_rules: dict[str, list[str]] = field(
        default_factory=lambda: {k: [] for k in RULE_LISTS})
    """From the project's files: deny and ask always, allow only when trusted."""
    hooks: list[ClaudeHook] = field(default_factory=list)
    found: list[Found] = field(default_factory=list)


def settings_files(project_root: Path, home: Path) -> list[tuple[Path, Scope, Path]]:
    """Each file, its scope, and the folder its `/x` paths are under."""
    return [
        (home / ".claude" / "settings.json", Scope.USER, home),
        (project_root / ".claude" / "settings.json", Scope.PROJECT, project_root),
        (project_root / ".claude" / "settings.local.json", Scope.PROJECT, project_root),
    ]



def claude_setup(project_root: Path, home: Path, trusted: bool) -> ClaudeSetup:
    """Rules, hooks and report rows of the three settings files."""
    setup = ClaudeSetup()
    root = project_root.resolve()
    user_env: tuple[tuple[str, str], ...] = ()
    enabled: set[str] = set()
    for path, scope, base in settings_files(root, home):
        if not path.exists():  # a FIFO or folder in its place is reported, never waited on
            continue
        try:
            data = read_json_object(path)
        except ValueError as exc:
            setup.found.append(Found(Kind.RULE, path.name, path, scope, "claude", False,
                                     str(exc)))
            continue
        for key in sorted(set(data) - KNOWN_KEYS):
            setup.found.append(Found(Kind.RULE, key, path, scope, "claude", False,
                                     "a Claude Code setting ValarMind does not read"))
        _rules(setup, data, path, scope, root, base, home, trusted)
        env = _env(data, path, scope, setup.found)
        if scope is Scope.USER or trusted:
            enabled |= enabled_names(data)
        if scope is Scope.USER:
            user_env = env
        elif not trusted:
            _untrusted_hooks(setup, data, path)
            continue
        setup.hooks += _hooks(data.get("hooks"), path, scope, user_env if scope is Scope.USER
                              else (*user_env, *env), setup.found)
    for plugin in installed_plugins(home, enabled, setup.found):
        table = plugin_hooks_table(plugin, setup.found)
        if table is not None:
            setup.hooks += _hooks(table[1], table[0], Scope.PLUGIN, (
                *user_env, ("CLAUDE_PLUGIN_ROOT", str(plugin.root))), setup.found)
    return setup


def _rules(setup: ClaudeSetup, data: dict[str, Any], path: Path, scope: Scope, root: Path,
           base: Path, home: Path, trusted: bool) -> None:
    permissions = data.get("permissions")
    if permissions is None:
        return
    if not isinstance(permissions, dict):
        setup.found.append(Found(Kind.RULE, "permissions", path, scope, "claude", False,
                                 "`permissions` is not an object"))
        return
    for key in sorted(set(permissions) - set(RULE_LISTS)):
        setup.found.append(Found(Kind.RULE, f"permissions.{key}", path, scope, "claude", False,
                                 "not read: only allow, ask and deny lists are"))
    target = setup.user_rules if scope is Scope.USER else setup.project_rules
    for kind in RULE_LISTS:
        texts = permissions.get(kind) or []
        if not isinstance(texts, list):
            setup.found.append(Found(Kind.RULE, f"permissions.{kind}", path, scope, "claude",
                                     False, "not a list of rules"))
            continue
        for text in texts:
            name = f"{kind} {text}"
            if not isinstance(text, str):
                setup.found.append(Found(Kind.RULE, name, path, scope, "claude", False,
                                         "not a string"))
                continue
            if kind == "allow" and scope is Scope.PROJECT and not trusted:
                setup.found.append(Found(Kind.RULE, name, path, scope, "claude", False,
                                         "untrusted folder: a project's allow rules wait for "
                                         "/trust yes"))
                continue
            translated = translate_rule(text, root, base, home)
            if not translated.rules:
                setup.found.append(Found(Kind.RULE, name, path, scope, "claude", False,
                                         translated.reason))
                continue
            target[kind] += translated.rules
            setup.found.append(Found(Kind.RULE, name, path, scope, "claude", True,
                                     "as " + ", ".join(translated.rules)))


def _env(data: dict[str, Any], path: Path, scope: Scope,
         found: list[Found]) -> tuple[tuple[str, str], ...]:
    env = data.get("env")
    if env is None:
        return ()
    if not isinstance(env, dict):
        found.append(Found(Kind.HOOK, "env", path, scope, "claude", False,
                           "`env` is not an object"))
        return ()
    return tuple((str(k), str(v)) for k, v in env.items()
                 if isinstance(v, str | int | float) and str(k) and "=" not in str(k))


def _untrusted_hooks(setup: ClaudeSetup, data: dict[str, Any], path: Path) -> None:
    table = data.get("hooks")
    if isinstance(table, dict) and table:
        for event in table:
            setup.found.append(Found(Kind.HOOK, str(event), path, Scope.PROJECT, "claude",
                                     False, "untrusted folder: a project's hooks wait for "
                                            "/trust yes"))


def _hooks(table: Any, path: Path, scope: Scope, env: tuple[tuple[str, str], ...],
           found: list[Found]) -> list[ClaudeHook]:
    """The command handlers of a `hooks` table; a bad entry is a note, never the whole file."""
    if table is None:
        return []
    if not isinstance(table, dict):
        found.append(Found(Kind.HOOK, "hooks", path, scope, "claude", False,
                           "`hooks` is not an object"))
        return []
    hooks: list[ClaudeHook] = []
    for event, groups in table.items():
        if event not in HOOK_EVENTS:
            found.append(Found(Kind.HOOK, str(event), path, scope, "claude", False,
                               f"unknown hook event {event!r}; that entry was skipped"))
            continue
        for group in groups if isinstance(groups, list) else []:
            hooks += _group(str(event), group, path, scope, env, found)
    return hooks


def _group(event: str, group: Any, path: Path, scope: Scope,
           env: tuple[tuple[str, str], ...], found: list[Found]) -> list[ClaudeHook]:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        found.append(Found(Kind.HOOK, event, path, scope, "claude", False,
                           "a matcher group without a `hooks` list"))
        return []
    matcher = group.get("matcher") or ""
    matcher = matcher if isinstance(matcher, str) else ""
    out: list[ClaudeHook] = []
    for handler in group["hooks"]:
        name = f"{event} {matcher}".strip()
        if not isinstance(handler, dict):
            found.append(Found(Kind.HOOK, name, path, scope, "claude", False,
                               "a handler that is not an object"))
            continue
        kind = handler.get("type", "command")
        if kind not in ("command", "prompt"):
            found.append(Found(Kind.HOOK, name, path, scope, "claude", False,
                               f"`type: {kind}` handlers are not run (only `command` and "
                               "`prompt`)"))
            continue
        command = handler.get(kind)
        if not isinstance(command, str) or not command.strip():
            found.append(Found(Kind.HOOK, name, path, scope, "claude", False, f"no `{kind}`"))
            continue
        timeout = handler.get("timeout")
        timeout = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
        out.append(ClaudeHook(event, matcher, command, timeout, path, env, kind))
        shown = command if kind == "command" else f"prompt: {command[:80]}"
        found.append(Found(Kind.HOOK, f"{name}: {shown}", path, scope, "claude", True))
    return out


def scan_claude_settings(project_root: Path, home: Path, trusted: bool) -> list[Found]:
    return claude_setup(project_root, home, trusted).found
