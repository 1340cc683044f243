from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.catalog import builtin_tools


@pytest.fixture
def ctx(git_repo: Path) -> ToolContext:
    return ToolContext(project_root=git_repo)


@pytest.fixture
def call(ctx: ToolContext):  # noqa: ANN201
    """Run a built-in tool by name with keyword arguments, as the agent loop would."""
    tools = builtin_tools()

    async def run(name: str, **arguments: Any) -> ToolResult:
        tool = tools.get(name)
        assert tool is not None
        return await tool.run(tool.parse(arguments), ctx)

    return run
