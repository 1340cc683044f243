"""Two runs on one file (#37): two real `valarmind -p` processes, each making its own edits to
different lines of one file at the same time, against the fake model server; no edit is lost.
Before the check under the folder's lock, each read, planned and wrote with nothing in between
to notice the other's write, and an edit now and then vanished while both said "Updated"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.checkpoints.conftest import SHELL_AGENT, edit
from tests.checkpoints.test_headless import ENV, configure
from tests.fakes.model_server import FakeModelServer
from tests.test_headless import model_flags
from valarmind_tui.core.user_dirs import user_config_dir

EDITS = 30
"""Edits per process, one model turn each."""


def _edits(lines: range) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "delegate", "arguments": {"agent": "shell", "task": "edit"}}]}]
    turns += [{"tool_calls": [edit("shared.txt", f"line {n} old\n", f"line {n} new\n")]}
              for n in lines]
    turns += [{"text": "Done in the shell."}, {"text": "Done."}]
    return turns


def test_two_processes_editing_one_file_lose_no_edit(git_repo: Path, fake_model: Any) -> None:
    configure()
    shell = user_config_dir() / "agents" / "shell.md"
    shell.write_text(SHELL_AGENT.replace("max_turns: 10", f"max_turns: {EDITS + 5}"))
    shared = git_repo / "shared.txt"
    shared.write_text("".join(f"line {n} old\n" for n in range(2 * EDITS)))
    other = FakeModelServer().start()
    try:
        fake_model.script(*_edits(range(0, 2 * EDITS, 2)))
        other.script(*_edits(range(1, 2 * EDITS, 2)))
        procs = [subprocess.Popen(
            [sys.executable, "-m", "valarmind_tui", "-p", f"edit {name}", "--output-format",
             "jsonl", "--permission-mode", "bypass", *model_flags(server)],
            cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **ENV}) for name, server in (("even", fake_model),
                                                           ("odd", other))]
        outputs = [proc.communicate(timeout=300) for proc in procs]
    finally:
        other.stop()
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err

    assert shared.read_text() == "".join(f"line {n} new\n" for n in range(2 * EDITS))
    results = [json.loads(line) for out, _err in outputs for line in out.splitlines()]
    finished = [e for e in results if e.get("type") == "tool_call_finished"
                and e.get("name") == "edit_file"]
    assert len(finished) == 2 * EDITS
