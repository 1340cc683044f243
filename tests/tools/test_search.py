"""glob, grep (both backends) and tree_view respect .gitignore and keep secrets out."""

from __future__ import annotations

from pathlib import Path

import pytest

from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.files.grep import Grep, find_rg


@pytest.fixture
def project(git_repo: Path) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n!keep.log\n/root_only.txt\n",
        "src/main.py": "import os\nNEEDLE = 1\n",
        "src/util/helpers.py": "def needle():\n    return 'NEEDLE'\n",
        "src/util/.gitignore": "local.txt\n",
        "src/util/local.txt": "NEEDLE in a locally ignored file\n",
        "src/root_only.txt": "NEEDLE not anchored here\n",
        "root_only.txt": "NEEDLE anchored ignore\n",
        "build/out.py": "NEEDLE = 'built'\n",
        "debug.log": "NEEDLE in a log\n",
        "keep.log": "NEEDLE kept log\n",
        ".github/ci.yml": "run: NEEDLE\n",
        ".env": "NEEDLE_TOKEN=sk-live-123\n",
        "docs/guide.md": "Find the needle.\n",
    }
    for name, text in files.items():
        path = git_repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (git_repo / "src" / "blob.bin").write_bytes(b"NEEDLE\0\0\1binary")
    return git_repo


VISIBLE_NEEDLES = [
    ".github/ci.yml:1:run: NEEDLE",
    "keep.log:1:NEEDLE kept log",
    "src/main.py:2:NEEDLE = 1",
    "src/root_only.txt:1:NEEDLE not anchored here",
    "src/util/helpers.py:2:    return 'NEEDLE'",
]


def test_rg_binary_is_found_next_to_python() -> None:
    rg = find_rg()
    assert rg is not None and Path(rg).name == "rg"


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_grep_respects_gitignore_and_hides_secrets(project: Path, backend: str) -> None:
    tool = Grep(backend=backend)  # type: ignore[arg-type]
    ctx = ToolContext(project_root=project)
    result = await tool.run(tool.parse({"pattern": "NEEDLE"}), ctx)
    lines = result.output.splitlines()
    assert lines[:-1] == VISIBLE_NEEDLES
    assert "sk-live" not in result.output
    assert ".env" in lines[-1] and "may hold secrets" in lines[-1]


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_grep_glob_path_and_case(project: Path, backend: str) -> None:
    tool = Grep(backend=backend)  # type: ignore[arg-type]
    ctx = ToolContext(project_root=project)

    async def grep(**args: object) -> str:
        return (await tool.run(tool.parse(args), ctx)).output

    assert (await grep(pattern="NEEDLE", glob="*.py")).splitlines() == [
        "src/main.py:2:NEEDLE = 1", "src/util/helpers.py:2:    return 'NEEDLE'"]
    assert (await grep(pattern="needle", path="src/util")).splitlines() == [
        "src/util/helpers.py:1:def needle():"]
    assert (await grep(pattern="needle", path="docs", ignore_case=True)).splitlines() == [
        "docs/guide.md:1:Find the needle."]
    assert "No matches" in await grep(pattern="haystack")
    escaped = await tool.run(tool.parse({"pattern": "x", "path": "../"}), ctx)
    assert escaped.is_error and "outside the project root" in escaped.output


async def test_python_grep_reports_a_bad_regex(project: Path) -> None:
    tool = Grep(backend="python")
    result = await tool.run(tool.parse({"pattern": "foo("}), ToolContext(project_root=project))
    assert result.is_error and "Invalid regular expression" in result.output


async def test_grep_output_is_capped(git_repo: Path) -> None:
    (git_repo / "many.txt").write_text("hit\n" * 1000)
    tool = Grep(backend="python")
    result = await tool.run(tool.parse({"pattern": "hit"}), ToolContext(project_root=git_repo))
    lines = result.output.splitlines()
    assert len(lines) == 301 and "700 more matches" in lines[-1]


async def test_glob_any_depth_and_top_level(call, project: Path) -> None:
    deep = await call("glob", pattern="**/*.py")
    assert deep.output.splitlines() == ["app.py", "src/main.py", "src/util/helpers.py"]
    top = await call("glob", pattern="*.log")
    assert top.output.splitlines() == ["keep.log"]
    under = await call("glob", pattern="*.py", path="src")
    assert under.output.splitlines() == ["src/main.py"]
    none = await call("glob", pattern="*.rs")
    assert "No files match" in none.output and not none.is_error
    bad = await call("glob", pattern="../*")
    assert bad.is_error


async def test_tree_view_depth_and_gitignore(call, project: Path) -> None:
    result = await call("tree_view", depth=2)
    assert result.output.splitlines() == [
        "./",
        "  .github/",
        "    ci.yml",
        "  docs/",
        "    guide.md",
        "  src/",
        "    util/ (2 entries)",
        "    blob.bin",
        "    main.py",
        "    root_only.txt",
        "  .env",
        "  .gitignore",
        "  README.md",
        "  app.py",
        "  keep.log",
    ]
    sub = await call("tree_view", path="src/util")
    assert sub.output.splitlines() == ["src/util/", "  .gitignore", "  helpers.py"]
