"""The lsp_* tools against the real basedpyright: definitions, hover, references that agree with
the repository map on a real project (requests 2.32.3), and diagnostics."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.repomap import RepoMap
from valarmind_tui.repomap.references import callers
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.lsp.lsp_definition import LspDefinition
from valarmind_tui.tools.lsp.lsp_diagnostics import LspDiagnostics
from valarmind_tui.tools.lsp.lsp_hover import LspHover
from valarmind_tui.tools.lsp.lsp_references import LspReferences
from valarmind_tui.tools.services import ToolServices

REQUESTS = Path(__file__).parents[1] / "fixtures" / "init_projects" / "requests-2.32.3"
UTILS = "src/requests/utils.py"


def context(manager: LspManager) -> ToolContext:
    return ToolContext(project_root=manager.root, services=ToolServices(lsp=manager))


async def test_definition_and_hover_follow_the_import(servers: LspManager) -> None:
    ctx = context(servers)
    found = await LspDefinition().run(
        LspDefinition.Params(path="report.py", line=5, symbol="area"), ctx)
    assert not found.is_error, found.output
    assert found.output == ("Defined at:\n"
                            "shapes.py:1:5  def area(width: int, height: int) -> int:")
    hover = await LspHover().run(LspHover.Params(path="report.py", line=5, symbol="area"), ctx)
    assert hover.output == "(function) def area(\n    width: int,\n    height: int\n) -> int"


async def test_a_symbol_not_on_the_line_is_said_plainly(servers: LspManager) -> None:
    result = await LspDefinition().run(
        LspDefinition.Params(path="report.py", line=1, symbol="line"), context(servers))
    assert result.is_error
    assert result.output == ("`line` is not on line 1 of report.py: "
                             "'from shapes import area'")


async def test_diagnostics_of_a_file_not_edited(servers: LspManager, project: Path) -> None:
    (project / "broken.py").write_text("from shapes import area\n\nx: str = area(1, 2)\n"
                                       "area('a', 2)\n")
    result = await LspDiagnostics().run(LspDiagnostics.Params(path="broken.py"),
                                        context(servers))
    lines = result.output.splitlines()
    assert lines[0] == "Diagnostics (basedpyright), broken.py: 2 errors, 1 warning:"
    assert lines[1].startswith('  broken.py:3:10 error: Type "int" is not assignable')
    assert lines[2].startswith('  broken.py:4:6 error: Argument of type "Literal[\'a\']"')
    assert lines[3].startswith("  broken.py:4:1 warning: Result of call expression")


async def test_references_agree_with_the_repo_map_on_a_real_project(
        tmp_path: Path, sandbox: Sandbox, pyright_on_path: str) -> None:
    root = tmp_path / "requests"
    shutil.copytree(REQUESTS, root)
    manager = LspManager(root, LspSettings(request_timeout_s=120), sandbox, trusted=False)
    repo_map = RepoMap(root)
    index = repo_map.file_tags()
    source = (root / UTILS).read_text().splitlines()
    compared = {}
    try:
        for name in ("requote_uri", "get_auth_from_url", "super_len", "should_bypass_proxies"):
            line = next(n for n, text in enumerate(source, 1) if text.startswith(f"def {name}("))
            result = await LspReferences().run(
                LspReferences.Params(path=UTILS, line=line, symbol=name), context(manager))
            assert not result.is_error, result.output
            by_server = set(result.data["files"]) - {UTILS}
            by_map = {f for f, _ in callers(root, index, name, exclude=UTILS)}
            compared[name] = (sorted(by_server), sorted(by_map))
    finally:
        repo_map.close()
        await manager.close()
    assert compared == {
        "requote_uri": (["src/requests/models.py", "src/requests/sessions.py"],) * 2,
        "get_auth_from_url": (["src/requests/adapters.py", "src/requests/models.py",
                               "src/requests/sessions.py"],) * 2,
        "super_len": (["src/requests/models.py"],) * 2,
        "should_bypass_proxies": (["src/requests/sessions.py"],) * 2,
    }


@pytest.mark.parametrize("tool", [LspDefinition(), LspReferences(), LspHover()])
async def test_a_file_no_server_serves_is_said_plainly(tool, servers: LspManager,  # noqa: ANN001
                                                       project: Path) -> None:
    (project / "notes.txt").write_text("area\n")
    result = await tool.run(tool.Params(path="notes.txt", line=1, symbol="area"),
                            context(servers))
    assert result.is_error
    assert result.output == "No language server handles .txt."


async def test_after_a_command_the_open_files_it_changed_are_checked(
        servers: LspManager, project: Path) -> None:
    await servers.open("report.py")
    assert await servers.after_change(None) == ""  # nothing changed on disk
    (project / "report.py").write_text("x: int = 'text'\n")  # as a command would
    said = await servers.after_change(None)
    assert said.startswith("Diagnostics (basedpyright), report.py: 1 error:\n"
                           '  report.py:1:10 error: Type "Literal[\'text\']" is not assignable')


async def test_ruff_server_serves_python_when_the_person_picks_it(
        project: Path, sandbox: Sandbox) -> None:
    manager = LspManager(project, LspSettings(servers={"python": ["ruff"]}), sandbox,
                         trusted=False)
    (project / "tidy.py").write_text("import os\nx = 1\n")
    try:
        said = await manager.after_change(["tidy.py"])
        (row,) = [r for r in manager.status() if r.language == "python"]
    finally:
        await manager.close()
    assert row.server == "ruff" and row.command.endswith("ruff server")
    assert said.startswith("Diagnostics (ruff), tidy.py: ")
    assert "tidy.py:1:8 warning: `os` imported but unused" in said


async def test_an_edit_checks_the_callers_the_agent_never_read(servers: LspManager,
                                                                project: Path) -> None:
    (project / "unrelated.py").write_text("value: int = 'not checked'\n")
    (project / "shapes.py").write_text(
        "def area(width: int, height: int) -> str:\n    return str(width * height)\n")
    said = await servers.after_change(["shapes.py"])
    assert said.splitlines()[0] == "Diagnostics (basedpyright), shapes.py: no problems."
    assert "Errors in the files that import it, opened now (basedpyright):" in said
    assert 'report.py:5:18 error: Type "str" is not assignable to declared type "int"' in said
    assert "unrelated.py" not in said
    fixed = await servers.after_change(["shapes.py"])  # nothing changed: nothing new
    assert "report.py" not in fixed
