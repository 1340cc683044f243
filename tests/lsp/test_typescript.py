"""typescript-language-server (npm, installed by the first test that needs it): an edit that
breaks a caller's types puts the caller's error in the edit's result, and references find the
caller."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.lsp.lsp_references import LspReferences
from valarmind_tui.tools.services import ToolServices

NPM_PREFIX = Path(__file__).resolve().parents[2] / "benchmarks" / ".cache" / "lsp-npm"
NPM_BIN = NPM_PREFIX / "node_modules" / ".bin"
NPM_PACKAGES = ("typescript-language-server@6.0.2", "typescript@5.9.3")


@pytest.fixture(scope="session")
def ts_path() -> str:
    """PATH with typescript-language-server first: installed from the npm registry into the
    benchmarks' cache the first time (as the MCP tests' npm servers are), so the README's test
    command needs no other set-up step."""
    if not (NPM_BIN / "typescript-language-server").exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not on PATH: the TypeScript language-server tests install "
                        f"{', '.join(NPM_PACKAGES)} with it", pytrace=False)
        NPM_PREFIX.mkdir(parents=True, exist_ok=True)
        with open(NPM_PREFIX.parent / "lsp-npm.lock", "w") as lock:  # two pytest workers
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (NPM_BIN / "typescript-language-server").exists():
                done = subprocess.run(
                    [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                     str(NPM_PREFIX), *NPM_PACKAGES], capture_output=True, text=True, timeout=300)
                if done.returncode != 0:
                    pytest.fail(f"npm install of {NPM_PACKAGES} failed:\n{done.stderr[-2000:]}",
                                pytrace=False)
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
