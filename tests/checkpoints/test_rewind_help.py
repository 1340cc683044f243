"""`/rewind` with no point headless says how to pick one, and what it says works (real
`valarmind -p` processes on a real repository)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.acp.conftest import RecordingClient, acp_agent, ask, configure_model, new_session
from tests.checkpoints.conftest import bash, shell_turn, tree_state
from tests.checkpoints.test_headless import ENV, configure
from tests.test_headless import model_flags, valarmind

pytestmark = pytest.mark.usefixtures("warm_runs")


def test_print_rewind_says_how_to_pick_a_point_and_the_advice_works(
    git_repo: Path, fake_model: Any,
) -> None:
    configure()
    before = tree_state(git_repo)
    fresh = valarmind("-p", "/rewind", cwd=git_repo)
    assert fresh.returncode == 0, fresh.stderr
    assert "This session has no messages yet" in fresh.stdout
    assert 'valarmind --continue -p "/rewind"' in fresh.stdout  # where the earlier one is

    fake_model.script(*shell_turn(bash("echo new > made.txt")))
    made = valarmind("-p", "make a file", "--permission-mode", "bypass",
                     *model_flags(fake_model), cwd=git_repo, env=ENV)
    assert made.returncode == 0, made.stderr
    assert (git_repo / "made.txt").exists()

    listed = valarmind("--continue", "-p", "/rewind", cwd=git_repo)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[1].split()[0] == "1" and "make a file" in lines[1]
    assert "`/rewind --prompt N [files|conversation|both]`" in lines[2]
    assert "`/rewind --prompt` lists your messages" in lines[2]

    shell = valarmind("rewind", "--list", cwd=git_repo)
    assert shell.returncode == 0, shell.stderr
    assert "`valarmind rewind --prompt N [--scope files|conversation|both]`" in shell.stdout

    messages = valarmind("--continue", "-p", "/rewind --prompt", cwd=git_repo)
    assert "`/rewind --prompt N [files|conversation|both]` goes back" in messages.stdout
    assert "  1  " in messages.stdout and "make a file" in messages.stdout
    back = valarmind("--continue", "-p", "/rewind --prompt 1 both", cwd=git_repo)
    assert back.returncode == 0, back.stderr
    assert tree_state(git_repo) == before

    wrong = valarmind("--continue", "-p", "/rewind latest", cwd=git_repo)
    assert wrong.returncode == 1 and wrong.stdout == ""
    assert "/rewind does not know 'latest'. Usage: /rewind [N | --prompt N" in wrong.stderr
    assert "`/rewind --prompt` lists your messages" in wrong.stderr


async def test_acp_rewind_says_how_to_pick_a_message(
    git_repo: Path, fake_model: Any, tmp_path: Path,
) -> None:
    configure_model(fake_model)
    fake_model.script({"text": "Hi."})
    client = RecordingClient()
    async with acp_agent(client, git_repo, tmp_path / "agent.log") as conn:
        session_id = await new_session(conn, git_repo)
        await ask(conn, session_id, "say hi")
        client.updates.clear()
        listed = await ask(conn, session_id, "/rewind")
        said = client.text()
        client.updates.clear()
        await ask(conn, session_id, "/rewind --prompt")
        messages = client.text()
    assert listed.stop_reason == "end_turn"
    assert "No checkpoints yet: no turn of this session changed files." in said
    assert "`/rewind --prompt N [files|conversation|both]`" in said  # the conversation can go
    assert "  1  " in messages and "say hi" in messages
