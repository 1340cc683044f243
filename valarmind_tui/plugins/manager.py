"""Plugins: installed packages (entry-point group `valarmind.plugins`) and, for projects the
person trusts (trust.py), Python files in the project's `plugins/` folder.

The built-in commands come through the same hook, from the built-in plugin (commands/builtin.py).
A project's plugins are code from the repository, so they run only for a trusted project (the
project's own config cannot grant that). A plugin that fails to load or register is a warning,
never fatal.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from valarmind_tui.plugins.defaults import BuiltinCommands
from valarmind_tui.plugins.specs import PluginSpec

ENTRY_POINT_GROUP = "valarmind.plugins"
DEFAULT_TOOL_AGENTS = ("orchestrator", "research")
"""Who gets a plugin's tool when the tool names no `agents` (as for MCP servers' tools)."""


@dataclass
class PluginContributions:
    """What the loaded plugins registered, and what went wrong."""

    tools: list[Any] = field(default_factory=list)
    commands: list[Any] = field(default_factory=list)
    """The built-in commands first, then the plugins'."""
    agents: list[Any] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_plugins(project_root: Path, *, trusted: bool = False) -> PluginContributions:
    manager = pluggy.PluginManager("valarmind")
    manager.add_hookspecs(PluginSpec)
    manager.register(BuiltinCommands(), name="builtin")
    found = PluginContributions()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _register(manager, found, ep.name, ep.load)
    folder = project_root / "plugins"
    if folder.is_dir() and trusted:
        for path in sorted(folder.glob("*.py")):
            _register(manager, found, f"plugins/{path.name}", lambda p=path: _import_file(p))
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


def offer_plugin_tool(tool: Any) -> None:
    """A plugin's tool goes to the agents it names (`agents = ("orchestrator", "code")` on the
    tool), else to DEFAULT_TOOL_AGENTS, and is gated by its own risk like an MCP tool: the mode
    and rules apply, not the agents' permission flags."""
    if getattr(tool, "agents", None) is None:
        tool.agents = DEFAULT_TOOL_AGENTS
