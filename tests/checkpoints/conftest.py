"""Sessions over real projects (git repositories and plain folders) with a shell-running
specialist, LiteLLM talking to the fake model server; helpers that read a work tree exactly."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.core.user_dirs import user_config_dir
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import open_session as open_stored_session
from valarmind_tui.settings.config import load_settings

SHELL_AGENT = """---
name: shell
description: Runs commands and edits files.
tools: [read_file, write_file, edit_file, bash]
permissions: {read: true, write: true, execute: true, web: false, spawn: false}
max_turns: 10
---
You run commands and edit files.
"""


def tree_state(root: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every file under root except .git: kind, bytes (or link target) and permission bits."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            info = os.lstat(path)
            key = str(path.relative_to(root))
            if stat.S_ISLNK(info.st_mode):
                state[key] = ("link", os.readlink(path).encode(), 0)
            else:
                state[key] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return state


def git_state(repo: Path) -> dict[str, str]:
    """What the project's own git says about itself."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                              check=True).stdout

    return {"status": git("status", "--porcelain", "--untracked-files=all"),
            "stash": git("stash", "list"), "branches": git("branch", "-a"),
            "head": git("rev-parse", "HEAD"), "refs": git("for-each-ref"),
            "index": git("ls-files", "-s")}


@pytest.fixture
def open_session(fake_model: Any, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """open_session(root, resume=None) -> a stored Session whose orchestrator can delegate to a
    `shell` specialist that runs bash and edits files (approved by policy)."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    agents = user_config_dir() / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "shell.md").write_text(SHELL_AGENT)
    opened: list[Session] = []

    def make(root: Path, resume: str | None = None) -> Session:
        settings = load_settings(root, trusted=False, model="openai/fake-model",
                                 api_base=fake_model.openai_base, api_key_env="FAKE_API_KEY")
        approver = PolicyApprover(allow_writes=True, allow_execute=True)
        session = open_stored_session(settings, root, resume=resume, approver=approver)
        opened.append(session)
        return session

    yield make
    for session in opened:
        if session.store is not None:
            session.store.close()


def shell_turn(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    """The scripted model turns of one prompt: delegate to `shell`, which makes `calls` (one
    model turn each), then both answer."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "delegate", "arguments": {"agent": "shell", "task": "do it"}}]}]
    turns += [{"tool_calls": [call]} for call in calls]
    turns += [{"text": "Done in the shell."}, {"text": "Done."}]
    return turns


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command}}


def write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write_file", "arguments": {"path": path, "content": content}}


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"name": "edit_file", "arguments": {"path": path, "old_string": old,
                                               "new_string": new}}


def kill_after_streaming(proc: subprocess.Popen[str], chars: int) -> str:
    """Read a `-p --output-format jsonl` process's main answer until more than `chars`
    characters were shown, then kill -9 it; what was shown."""
    shown = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        event = json.loads(line)
        if event["type"] == "text_delta" and event["agent_id"] == "main":
            shown += event["text"]
            if len(shown) > chars:
                break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return shown
