"""Language-server tests run the real basedpyright (pinned in the lock file, with the node it
bundles) in the real sandbox; a machine without either says so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings


@pytest.fixture(autouse=True)
def servers_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Language servers as a person has them: on (tests elsewhere turn them off)."""
    monkeypatch.delenv("VALARMIND_LSP__ENABLED", raising=False)


@pytest.fixture
def pyright_on_path() -> str:
    found = shutil.which("basedpyright-langserver")
    if found is None:
        pytest.fail("basedpyright-langserver is not on PATH: run the tests through .ci/with-env "
                    "(the lock file installs basedpyright)")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small Python project: a function and its caller."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "shapes.py").write_text(
        "def area(width: int, height: int) -> int:\n    return width * height\n")
    (root / "report.py").write_text(
        "from shapes import area\n\n\ndef line() -> str:\n    total: int = area(2, 3)\n"
        "    return f'area {total}'\n")
    return root


@pytest.fixture
async def servers(project: Path, sandbox: Sandbox, pyright_on_path: str):  # noqa: ANN201
    settings = LspSettings(diagnostics_timeout_s=20, request_timeout_s=60)  # a loaded machine
    manager = LspManager(project, settings, sandbox, trusted=False)
    try:
        yield manager
    finally:
        await manager.close()
