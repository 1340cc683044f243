"""Plugins: installed packages (entry-point group `valarmind.plugins`) and, for projects the
person trusts, Python files in the project's `plugins/` folder.

A project's plugins are code from the repository, so they run only when the user config lists the
project under `trusted_plugin_projects` (the project's own config cannot grant that). A plugin
that fails to load or register is a warning, never fatal.
"""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from valarmind_tui.hookspecs import PluginSpec
from valarmind_tui.user_dirs import user_config_dir

ENTRY_POINT_GROUP = "valarmind.plugins"


@dataclass
class PluginContributions:
    """What the loaded plugins registered, and what went wrong."""

    tools: list[Any] = field(default_factory=list)
    commands: list[Any] = field(default_factory=list)
    agents: list[Any] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def trusted_projects() -> set[Path]:
    """Projects whose `plugins/` folder may run, from the user's own config file only."""
    path = user_config_dir() / "config.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return set()
    return {Path(p).expanduser().resolve() for p in data.get("trusted_plugin_projects", [])}


def load_plugins(project_root: Path) -> PluginContributions:
    manager = pluggy.PluginManager("valarmind")
    manager.add_hookspecs(PluginSpec)
    found = PluginContributions()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _register(manager, found, ep.name, ep.load)
    folder = project_root / "plugins"
    if folder.is_dir() and project_root.resolve() in trusted_projects():
        for path in sorted(folder.glob("*.py")):
            _register(manager, found, f"plugins/{path.name}", lambda p=path: _import_file(p))
    elif folder.is_dir() and any(folder.glob("*.py")):
        found.warnings.append(
            f"{folder} has plugins; they run only when {project_root} is listed in "
            f"trusted_plugin_projects in {user_config_dir() / 'config.toml'}."
        )
    for hook, bucket in ((manager.hook.register_tools, found.tools),
                         (manager.hook.register_commands, found.commands),
                         (manager.hook.register_agents, found.agents)):
        try:
            hook(register=bucket.append)
        except Exception as exc:  # a plugin's own bug must not stop the session
            found.warnings.append(f"a plugin failed in {hook.name}: {exc}")
    return found


def _register(manager: pluggy.PluginManager, found: PluginContributions, name: str,
              load: Any) -> None:
    try:
        manager.register(load(), name=name)
        found.loaded.append(name)
    except Exception as exc:  # import errors, syntax errors, anything a plugin raises
        found.warnings.append(f"plugin {name} failed to load: {exc}")


def _import_file(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"valarmind_plugin_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
