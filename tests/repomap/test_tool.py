"""The repo_map tool as an agent calls it."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.tools.base import Risk, ToolContext
from valarmind_tui.tools.repo_map import RepoMapTool


async def test_repo_map_tool_returns_ranked_signatures(git_repo: Path) -> None:
    (git_repo / "main.py").write_text("from app import greet\n\nprint(greet('x'))\n")
    tool = RepoMapTool()
    assert tool.risk is Risk.READ
    assert "PageRank" in tool.schema()["function"]["description"]
    result = await tool.run(tool.parse({"tokens": 512}), ToolContext(project_root=git_repo))
    assert not result.is_error
    assert "app.py:" in result.output and "def greet(name):" in result.output
    assert result.data["files"][0] == "app.py"
