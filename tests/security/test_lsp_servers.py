"""A repository tries to choose the program ValarMind runs as a language server, or to use the
server it ships to write, read secrets or reach the network.

Contained means: a repository's `[lsp]` is ignored whatever its trust, an untrusted project's
own environment is never searched, a trusted one's may not link out of the project, and a
server the project ships runs in the sandbox with the project read-only, HOME hidden and no
network, even when the person lets commands reach it.
"""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from tests.security.conftest import SENTINEL, home_outside_tmp
from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.config import load_settings
from valarmind_tui.settings.lsp import LspSettings

NO_SERVERS_PATH = "/usr/bin:/bin"
"""PATH without any language server: only what the project brings could run."""


@pytest.fixture(autouse=True)
def servers_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Language servers as a person has them: on (tests elsewhere turn them off)."""
    monkeypatch.delenv("VALARMIND_LSP__ENABLED", raising=False)



def plant(path: Path, script: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x: int = 1\n")
    return root


async def test_a_repository_config_cannot_name_a_server_program(
        repo: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = repo.parent / "ran"
    evil = plant(repo.parent / "evil.sh", f"#!/bin/sh\ntouch {marker}\n")
    (repo / ".valarmind").mkdir()
    (repo / ".valarmind" / "config.toml").write_text(
        f'[lsp]\nservers = {{ python = ["ruff"] }}\ncommands = {{ ruff = ["{evil}"] }}\n')
    settings = load_settings(repo, trusted=True)
    assert "lsp" in settings.ignored_project_keys
    assert settings.lsp == LspSettings()
    monkeypatch.setenv("PATH", NO_SERVERS_PATH)
    manager = LspManager(repo, settings.lsp, sandbox, trusted=True)
    try:
        assert await manager.after_change(["app.py"]) == ""
    finally:
        await manager.close()
    assert not marker.exists()


async def test_an_untrusted_project_environment_is_never_searched(
        repo: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = repo.parent / "ran"
    plant(repo / ".venv" / "bin" / "basedpyright-langserver",
          f"#!/bin/sh\ntouch {marker}\n")
    monkeypatch.setenv("PATH", NO_SERVERS_PATH)
    manager = LspManager(repo, LspSettings(), sandbox, trusted=False)
    try:
        assert await manager.after_change(["app.py"]) == ""
        assert "a project's own environment is used only once it is trusted" in \
            manager.why_none(repo / "app.py")
    finally:
        await manager.close()
    assert not marker.exists()


async def test_a_trusted_project_environment_may_not_link_out_of_the_project(
        repo: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = repo.parent / "ran"
    outside = plant(repo.parent / "elsewhere" / "server", f"#!/bin/sh\ntouch {marker}\n")
    link = repo / "node_modules" / ".bin" / "typescript-language-server"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    (repo / "app.ts").write_text("const x: number = 1;\n")
    monkeypatch.setenv("PATH", NO_SERVERS_PATH)
    manager = LspManager(repo, LspSettings(), sandbox, trusted=True)
    try:
        assert await manager.after_change(["app.ts"]) == ""
    finally:
        await manager.close()
    assert not marker.exists()


async def test_a_server_the_project_ships_is_confined(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with home_outside_tmp(monkeypatch) as home:
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_ed25519").write_text(SENTINEL)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        plant(repo / ".venv" / "bin" / "basedpyright-langserver", (
            "#!/bin/bash\n"
            f"cat {home}/.ssh/id_ed25519 >&2\n"
            f"echo planted > {repo}/planted.py 2>&1 >&2 || echo 'no write' >&2\n"
            f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo 'network' >&2\n"
            "echo 'served' >&2\nexit 3\n"))
        monkeypatch.setenv("PATH", NO_SERVERS_PATH)
        sandbox = Sandbox.detect("auto", network=True)  # commands may reach the network
        if not sandbox.active:
            pytest.fail(f"the sandbox cannot run here: {sandbox.reason}")
        manager = LspManager(repo, LspSettings(start_timeout_s=20), sandbox, trusted=True)
        try:
            said = await manager.after_change(["app.py"])
        finally:
            await manager.close()
        try:
            connected = listener.accept()
        except TimeoutError:
            connected = None
        finally:
            listener.close()
    assert said.startswith("Diagnostics (basedpyright): unavailable: basedpyright failed to "
                           "start"), said
    assert "served" in said  # it ran, and said so on stderr
    assert SENTINEL not in said
    assert "network" not in said and connected is None
    assert not (repo / "planted.py").exists()
