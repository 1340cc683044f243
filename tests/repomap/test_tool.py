"""The repo_map tool as an agent calls it."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.tools.base import Risk, ToolContext
from valarmind_tui.tools.files.repo_map import RepoMapTool


async def test_repo_map_tool_returns_ranked_signatures(git_repo: Path) -> None:
    (git_repo / "main.py").write_text("from app import greet\n\nprint(greet('x'))\n")
    tool = RepoMapTool()
    assert tool.risk is Risk.READ
    assert "PageRank" in tool.schema()["function"]["description"]
    result = await tool.run(tool.parse({"tokens": 512}), ToolContext(project_root=git_repo))
    assert not result.is_error
    assert "app.py:" in result.output and "def greet(name):" in result.output
    assert result.data["files"][0] == "app.py"


async def test_repo_map_tool_lists_the_callers_of_a_name(git_repo: Path) -> None:
    (git_repo / "use.py").write_text("from app import greet\n\n\ndef hi():\n"
                                     "    return greet('x')\n")
    (git_repo / "web.py").write_text("from html import escape\n\n\ndef page(s):\n"
                                     "    return escape(s)\n")
    (git_repo / "esc.py").write_text("def escape(s):\n    return s\n")
    tool = RepoMapTool()
    result = await tool.run(tool.parse({"callers": ["greet", "escape", "nothing"]}),
                            ToolContext(project_root=git_repo))
    assert "`greet`: used by 1 file(s): use.py:1" in result.output
    assert "`escape`: no other file references it." in result.output  # html's, not ours
    assert result.data["callers"] == {"greet": ["use.py:1"], "escape": [], "nothing": []}
