"""The attack suite: every test here is one attack attempt made the way a hostile repository,
model output or MCP peer would make it, with a sentinel key in the environment.

A passing test means the attack was contained; a failing one means it got through. The terminal
summary (tests/conftest.py, so it also works with xdist workers) prints one line per attack class
(each test file is a class) with the counts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SENTINEL = "sk-valarmind-sentinel-4f1c9e2b7a"
"""A fake API key: no output, request, file or child environment may ever contain it."""


@pytest.fixture(autouse=True)
def sentinel_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The sentinel in every variable a provider key could come from."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "VALARMIND_TEST_KEY"):
        monkeypatch.setenv(name, SENTINEL)
    return SENTINEL


@contextlib.contextmanager
def home_outside_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A HOME (and XDG config and data) the sandbox does not replace with its own /tmp, so an
    attack on it proves something; removed afterwards."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    home = Path(tempfile.mkdtemp(prefix="valarmind-home-", dir=base))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)
