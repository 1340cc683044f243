"""typescript-language-server (npm, installed by .ci/run): an edit that breaks a caller's types
puts the caller's error in the edit's result, and references find the caller."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.lsp.lsp_references import LspReferences
from valarmind_tui.tools.services import ToolServices

NPM_BIN = Path(__file__).resolve().parents[2] / "benchmarks" / ".cache" / "lsp-npm" / \
    "node_modules" / ".bin"


@pytest.fixture
def ts_path() -> str:
    if not (NPM_BIN / "typescript-language-server").exists():
        pytest.fail(f"typescript-language-server is not in {NPM_BIN}: .ci/run installs it "
                    "(npm install --prefix benchmarks/.cache/lsp-npm "
                    "typescript-language-server@6.0.2 typescript@5.9.3)", pytrace=False)
    return f"{NPM_BIN}{os.pathsep}{os.environ.get('PATH', '')}"


async def test_an_edit_that_breaks_a_caller_shows_the_callers_error(
        tmp_path: Path, sandbox: Sandbox, ts_path: str) -> None:
    root = tmp_path / "web"
    root.mkdir()
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    (root / "shapes.ts").write_text(
        "export function area(w: number, h: number): number {\n  return w * h;\n}\n")
    (root / "report.ts").write_text(
        'import { area } from "./shapes";\n\nconst total: number = area(2, 3);\n'
        "console.log(total);\n")
    manager = LspManager(root, LspSettings(diagnostics_timeout_s=30, request_timeout_s=60),
                         sandbox, trusted=False, path_env=ts_path)
    ctx = ToolContext(project_root=manager.root, services=ToolServices(lsp=manager))
    try:
        found = await LspReferences().run(
            LspReferences.Params(path="shapes.ts", line=1, symbol="area"), ctx)
        assert found.data["files"] == ["report.ts"], found.output
        await manager.open("report.ts")  # as the agent's read_file of the caller does
        (root / "shapes.ts").write_text(
            "export function area(w: number, h: number): string {\n  return String(w * h);\n}\n")
        said = await manager.after_change(["shapes.ts"])
    finally:
        await manager.close()
    assert "Errors that appeared in other open files (typescript-language-server):" in said
    assert ("report.ts:3:7 error: Type 'string' is not assignable to type 'number'. [2322] "
            "(typescript)") in said
