"""Real git repositories with crafted changes for the static review."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

CORE = '''\
def sympify(a, strict=False):
    """Turn `a` into an expression."""
    return a


def helper(x):
    return x


def compute(a, b):
    return a + b


class Shape:
    def area(self):
        return 0
'''


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                         env={**os.environ, **GIT_ENV})
    return out.stdout


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A package whose `pkg/core.py` is used by three other modules, and a test."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE,
             "tests/test_core.py": "from pkg.core import compute\n\n\ndef test_compute():\n"
                                   "    assert compute(1, 2) == 3\n"}
    for i in range(1, 4):
        files[f"pkg/user{i}.py"] = (
            "from pkg.core import compute, helper, sympify\n\n\n"
            f"def use{i}(v):\n    return sympify(v) + helper(v) + compute(v, {i})\n")
    write(repo, files)
    commit(repo, "init")
    return repo
