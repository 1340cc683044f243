"""git_status and git_diff against real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools


async def test_status_and_diffs(call, git_repo: Path) -> None:
    clean = await call("git_status")
    assert clean.output.startswith("## main") and "Working tree clean" in clean.output
    (git_repo / "app.py").write_text("def greet(name):\n    return f'Hi {name}'\n")
    (git_repo / "new.py").write_text("x = 1\n")
    status = await call("git_status")
    assert " M app.py" in status.output and "?? new.py" in status.output
    diff = await call("git_diff")
    assert "-    return 'Hello ' + name" in diff.output
    assert "+    return f'Hi {name}'" in diff.output
    assert "No staged changes" in (await call("git_diff", staged=True)).output
    subprocess.run(["git", "add", "app.py"], cwd=git_repo, check=True)
    assert "+    return f'Hi {name}'" in (await call("git_diff", staged=True)).output
    assert "app.py" in (await call("git_diff", ref="HEAD", paths=["app.py"])).output
    assert "No changes against HEAD" in (await call("git_diff", ref="HEAD",
                                                     paths=["README.md"])).output


async def test_diff_refuses_options_as_refs_and_outside_paths(call, git_repo: Path) -> None:
    injected = await call("git_diff", ref="--output=/tmp/owned")
    assert injected.is_error and "not a ref" in injected.output
    outside = await call("git_diff", paths=["../x"])
    assert outside.is_error and "outside the project root" in outside.output


async def test_not_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    tool = builtin_tools().get("git_status")
    assert tool is not None
    result = await tool.run(tool.parse({}), ToolContext(project_root=plain))
    assert result.is_error and "not a git repository" in result.output


async def test_repository_config_cannot_run_commands(call, git_repo: Path) -> None:
    subprocess.run(["git", "config", "core.fsmonitor", "touch pwned"], cwd=git_repo, check=True)
    (git_repo / "app.py").write_text("changed\n")
    await call("git_status")
    await call("git_diff")
    assert not (git_repo / "pwned").exists()
