"""Shared fixtures: every test runs with its own config/data dirs and no provider keys."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from valarmind_tui.config import KNOWN_KEYS

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A throwaway HOME/XDG config and data dir; provider keys removed from the environment."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    for name in list(os.environ):
        if name in KNOWN_KEYS or name.startswith("VALARMIND_"):
            monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository with one commit."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=env)
    (repo / "README.md").write_text("# demo\n")
    (repo / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True, env=env)
    return repo


@pytest.fixture
def fake_model():
    """A started fake model server (tests/fakes/model_server.py), stopped after the test."""
    from tests.fakes.model_server import FakeModelServer

    server = FakeModelServer().start()
    try:
        yield server
    finally:
        server.stop()
