"""The same checkpoints headless: `valarmind -p`, then `undo`, `redo`, `rewind`, `sessions` and
`--continue`, each a real process on a real repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import SHELL_AGENT, bash, git_state, shell_turn, tree_state, write
from tests.conftest import write_user_config
from tests.test_headless import model_flags, valarmind
from valarmind_tui.core.user_dirs import user_config_dir

pytestmark = pytest.mark.usefixtures("warm_runs")

ENV = {"FAKE_API_KEY": "sk-test"}


def configure() -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n')
    agents = user_config_dir() / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "shell.md").write_text(SHELL_AGENT)


def test_print_then_undo_redo_rewind_sessions_and_continue(
    git_repo: Path, fake_model: Any,
) -> None:
    configure()
    before = tree_state(git_repo)
    own_git = git_state(git_repo)
    fake_model.script(*shell_turn(
        bash("echo new > made.txt && rm README.md && chmod +x app.py"),
        write("docs/guide.md", "# guide\n")))
    out = valarmind("-p", "make files", "--output-format", "jsonl",
                    "--permission-mode", "bypass", *model_flags(fake_model), cwd=git_repo,
                    env=ENV)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    kinds = [(e["kind"], e["tool"]) for e in events if e["type"] == "checkpoint_created"]
    assert kinds == [("before", "bash"), ("before", "write_file"), ("after", None)]
    after = tree_state(git_repo)
    assert "README.md" not in after and after["docs/guide.md"][1] == b"# guide\n"

    listed = valarmind("rewind", "--list", cwd=git_repo)
    assert listed.returncode == 0, listed.stderr
    assert "1 " in listed.stdout and "make files" in listed.stdout

    undone = valarmind("undo", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert "README.md" in undone.stdout and "made.txt" in undone.stdout
    assert tree_state(git_repo) == before
    assert git_state(git_repo) == own_git

    assert valarmind("redo", cwd=git_repo).returncode == 0
    assert tree_state(git_repo) == after
    rewound = valarmind("rewind", "--to", "1", cwd=git_repo)
    assert rewound.returncode == 0, rewound.stderr
    assert tree_state(git_repo) == before

    sessions = valarmind("sessions", "--json", cwd=git_repo)
    stored = json.loads(sessions.stdout)
    assert [s["title"] for s in stored] == ["make files"]
    assert stored[0]["files_changed"] == 4  # made.txt, README.md, app.py, docs/guide.md
    listed = valarmind("sessions", cwd=git_repo).stdout
    assert "make files" in listed and "4 files" in listed and stored[0]["id"] in listed

    fake_model.script({"text": "I remember."})
    again = valarmind("--continue", "-p", "what did I ask?", *model_flags(fake_model),
                      cwd=git_repo, env=ENV)
    assert again.returncode == 0, again.stderr
    sent = [m.get("content") for m in fake_model.requests[-1]["messages"]]
    assert "make files" in sent and sent[-1] == "what did I ask?"


def test_undo_without_a_session_says_so(tmp_path: Path) -> None:
    out = valarmind("undo", cwd=tmp_path)
    assert out.returncode == 2 and "no stored session" in out.stderr
