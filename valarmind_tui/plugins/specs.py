"""What a plugin can add. Each hook receives a `register` callback (simonw/llm's pattern)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("valarmind")
hookimpl = pluggy.HookimplMarker("valarmind")


class PluginSpec:
    @hookspec
    def register_tools(self, register: Callable[[Any], None]) -> None:
        """register(tool): a `valarmind_tui.tools.base.Tool` instance."""

    @hookspec
    def register_commands(self, register: Callable[[Any], None]) -> None:
        """register(command): a `valarmind_tui.commands.registry.Command`."""

    @hookspec
    def register_agents(self, register: Callable[[Any], None]) -> None:
        """register(spec): a `valarmind_tui.agents.spec.AgentSpec`."""
