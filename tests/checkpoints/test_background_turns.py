"""What a background command changed is a turn of its own when it ends; the files a prompt's
own tools changed meanwhile stay that prompt's (a real shadow repository, real files)."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.checkpoints import SessionCheckpoints


async def test_a_background_commands_turn_leaves_the_prompts_own_files(git_repo: Path) -> None:
    checkpoints = SessionCheckpoints(git_repo, "s-background")
    start = await checkpoints.job_started()

    checkpoints.begin("edit app.py")  # a prompt runs while the command does
    await checkpoints.before_change("edit_file")
    (git_repo / "app.py").write_text("edited by the prompt\n")
    await checkpoints.after_change("edit_file", ["app.py"])
    (git_repo / "built.txt").write_text("made by the background command\n")
    await checkpoints.end()

    await checkpoints.job_ended(start, "&make watch")

    last = checkpoints.turns()[-1]
    assert last.prompt == "&make watch" and last.own == frozenset({"built.txt"})
    undone = await checkpoints.undo()
    assert undone.turn == last.number
    assert not (git_repo / "built.txt").exists()
    assert (git_repo / "app.py").read_text() == "edited by the prompt\n"


async def test_a_background_command_that_changed_nothing_leaves_no_turn(git_repo: Path) -> None:
    checkpoints = SessionCheckpoints(git_repo, "s-quiet")
    start = await checkpoints.job_started()
    await checkpoints.job_ended(start, "&sleep 1")
    assert checkpoints.turns() == []
