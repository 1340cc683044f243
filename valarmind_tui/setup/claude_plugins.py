"""Claude Code plugins the person installed: their `hooks/hooks.json` and `skills/`.

Claude Code keeps the plugins it installed in `~/.claude/plugins/installed_plugins.json`
(`{"plugins": {"name@marketplace": [{"installPath": ...}]}}`; an older version holds one object
per name) and turns them on in `enabledPlugins` of the person's `~/.claude/settings.json` (a
trusted project's may turn on one the person installed). A plugin loads only when both say
so, as in Claude Code. In a plugin's files `${CLAUDE_PLUGIN_ROOT}` is its folder; its hook
commands get it replaced and in their environment too.

Plugins are the person's own (they installed them), so their hooks run like those of
`~/.claude/settings.json`: never from a repository's files alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.setup.json_files import read_json_object
from valarmind_tui.setup.report import Found, Kind, Scope

ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"


@dataclass(frozen=True)
class ClaudePlugin:
    name: str
    """`name@marketplace`, as Claude Code names it."""
    root: Path



def enabled_names(settings: dict[str, Any]) -> set[str]:
    """The plugins a settings file's `enabledPlugins` turns on."""
    table = settings.get("enabledPlugins")
    return {str(k) for k, v in table.items() if v is True} if isinstance(table, dict) else set()


def installed_plugins(home: Path, enabled: set[str], found: list[Found]) -> list[ClaudePlugin]:
    """The installed plugins that `enabled` turns on and whose folder exists."""
    registry = home / ".claude" / "plugins" / "installed_plugins.json"
    if not enabled or not registry.exists():
        return []
    try:
        data = read_json_object(registry)
    except (OSError, ValueError) as exc:
        found.append(Found(Kind.HOOK, "plugins", registry, Scope.PLUGIN, "claude", False,
                           str(exc)))
        return []
    table = data.get("plugins")
    plugins: list[ClaudePlugin] = []
    for name, entries in (table.items() if isinstance(table, dict) else ()):
        if name not in enabled:
            continue
        entry = entries[-1] if isinstance(entries, list) and entries else entries
        where = entry.get("installPath") if isinstance(entry, dict) else None
        root = Path(where).expanduser() if isinstance(where, str) and where else None
        if root is None or not root.is_dir():
            found.append(Found(Kind.HOOK, str(name), registry, Scope.PLUGIN, "claude", False,
                               f"its installPath {where!r} is not a folder here"))
            continue
        plugins.append(ClaudePlugin(str(name), root.resolve()))
    return plugins


def plugin_hooks_table(plugin: ClaudePlugin, found: list[Found]) -> tuple[Path, Any] | None:
    """The plugin's `hooks/hooks.json` (its `hooks` table) with `${CLAUDE_PLUGIN_ROOT}` in
    every command replaced by the plugin's folder; None when it has none."""
    path = plugin.root / "hooks" / "hooks.json"
    if not path.exists():
        return None
    try:
        data = read_json_object(path)
    except (OSError, ValueError) as exc:
        found.append(Found(Kind.HOOK, plugin.name, path, Scope.PLUGIN, "claude", False,
                           str(exc)))
        return None
    return path, _with_root(data.get("hooks"), str(plugin.root))


def _with_root(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(ROOT_VARIABLE, root)
    if isinstance(value, list):
        return [_with_root(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _with_root(v, root) for k, v in value.items()}
    return value


def enabled_plugins(project_root: Path, home: Path, trusted: bool,
                    found: list[Found] | None = None) -> list[ClaudePlugin]:
    """The plugins turned on by the person's settings.json (and a trusted project's)."""
    files = [home / ".claude" / "settings.json"]
    if trusted:
        files += [project_root / ".claude" / "settings.json",
                  project_root / ".claude" / "settings.local.json"]
    enabled: set[str] = set()
    for path in files:
        if path.exists():
            try:
                enabled |= enabled_names(read_json_object(path))
            except (OSError, ValueError):
                continue  # setup.claude_settings reports the broken file
    return installed_plugins(home, enabled, [] if found is None else found)
