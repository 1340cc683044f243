"""The set of tools an agent may use, by name; MCP tools join as `mcp__<server>__<tool>`."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from typing import Any

from valarmind_tui.tools.base import Tool


class ToolRegistry:
    """Tools by name, in registration order."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def subset(self, patterns: Iterable[str]) -> ToolRegistry:
        """The tools whose names match any glob pattern (`read_*`, `mcp__git__*`)."""
        pats = list(patterns)
        return ToolRegistry(
            t for name, t in self._tools.items() if any(fnmatch.fnmatchcase(name, p) for p in pats)
        )

    def for_agent(self, agent: str, patterns: Iterable[str]) -> ToolRegistry:
        """The tools an agent's own list names, plus those offered to it by name (`Tool.agents`:
        MCP servers' and plugins' tools), plus their companions (`Tool.companion_of`)."""
        pats = list(patterns)
        picked = {
            name: t for name, t in self._tools.items()
            if any(fnmatch.fnmatchcase(name, p) for p in pats) or agent in (t.agents or ())
        }
        for name, tool in self._tools.items():
            prefix = tool.companion_of
            if prefix and name not in picked and any(n.startswith(prefix) for n in picked):
                picked[name] = tool
        return ToolRegistry(t for name, t in self._tools.items() if name in picked)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self._tools.values()]
