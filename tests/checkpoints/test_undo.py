"""/undo, /redo and /rewind through a real Session: a specialist edits files and runs bash
commands that create, modify, delete, rename and chmod; the files come back byte for byte."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import bash, edit, git_state, shell_turn, tree_state, write
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.events import CheckpointCreated, FilesRestored

MIXED_TURN = shell_turn(
    edit("app.py", "'Hello ' + name", "f'Hi {name}'"),
    bash("printf 'x\\0y' > data.bin && mkdir -p pkg/sub && echo one > pkg/sub/new.txt"),
    bash("mv README.md DOCS.md && chmod +x run.sh && chmod -x tool.sh && rm gone.txt"),
    write("notes.md", "written by the agent\n"),
    bash("ln -s app.py link.py && printf 'more\\n' >> keep.txt"),
)


# the change touches several files, so review and QA run; no project command is detected here,
# so QA has nothing to run and the turn ends "unverified" (the files are what this test is about)
GATES_PASS = (
    ScriptedTurn(text=json.dumps({"files_reviewed": ["app.py"], "findings": [], "approved": True,
                                  "summary": "fine"})),
    ScriptedTurn(text=json.dumps({"passed": True, "summary": "nothing to run", "checks": []})),
)


def seed(root: Path) -> None:
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    os.chmod(root / "tool.sh", 0o755)
    (root / "gone.txt").write_bytes(b"bytes \xff\xfe kept\r\n")
    (root / "keep.txt").write_text("keep\n")


@pytest.mark.parametrize("kind", ["git", "plain"])
async def test_undo_and_redo_a_turn_of_edits_and_commands(
    kind: str, git_repo: Path, tmp_path: Path, fake_model: Any, open_session: Any,
) -> None:
    root = git_repo
    if kind == "plain":
        root = tmp_path / "plain"
        root.mkdir()
        (root / "README.md").write_text("# demo\n")
        (root / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
    seed(root)
    own_git = git_state(root) if kind == "git" else None
    before = tree_state(root)
    session = open_session(root)
    events: list[Any] = []
    session.bus.add_listener(events.append)
    fake_model.script(*MIXED_TURN, *GATES_PASS)
    result = await session.submit("change things")
    assert result.status == "unverified" and "QA: not run" in result.text, result.text
    after = tree_state(root)
    assert after["DOCS.md"][1] == b"# demo\n" and "gone.txt" not in after
    assert after["run.sh"][2] & 0o111 and not after["tool.sh"][2] & 0o111
    assert after["link.py"] == ("link", b"app.py", 0)

    undone = await session.run_command("/undo")
    assert undone.ok, undone.text
    assert tree_state(root) == before
    assert "README.md" in undone.text and "data.bin" in undone.text
    redone = await session.run_command("/redo")
    assert redone.ok, redone.text
    assert tree_state(root) == after
    assert (await session.run_command("/undo")).ok
    assert tree_state(root) == before
    if own_git is not None:
        assert git_state(root) == own_git

    created = [e for e in events if isinstance(e, CheckpointCreated)]
    assert [(e.kind, e.tool) for e in created][:1] == [("before", "edit_file")]
    assert created[-1].kind == "after"
    assert {e.tool for e in created} >= {"edit_file", "bash", "write_file"}
    restored = [e for e in events if isinstance(e, FilesRestored)]
    assert [e.action for e in restored] == ["undo", "redo", "undo"]
    assert "pkg/sub/new.txt" in restored[0].removed and not restored[0].conflicts
    logged = {e["type"] for e in session.store.events(session.session_id)}
    assert {"checkpoint_created", "files_restored"} <= logged


async def test_a_hand_edit_is_never_overwritten(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo agent > a.txt && echo agent > b.txt")))
    await session.submit("write a and b")
    (git_repo / "a.txt").write_text("mine, by hand\n")

    refused = await session.run_command("/undo")
    assert not refused.ok
    assert "a.txt" in refused.text and "--force" in refused.text
    assert (git_repo / "a.txt").read_text() == "mine, by hand\n"
    assert not (git_repo / "b.txt").exists()

    again = await session.run_command("/undo")  # still refused, still named
    assert not again.ok and "a.txt" in again.text
    forced = await session.run_command("/undo --force")
    assert forced.ok, forced.text
    assert not (git_repo / "a.txt").exists() and not (git_repo / "b.txt").exists()
    assert "Nothing to undo" in (await session.run_command("/undo")).text


async def test_undo_twice_and_rewind_over_several_turns(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    start = tree_state(git_repo)
    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("first")
    one = tree_state(git_repo)
    (git_repo / "between.txt").write_text("by hand between turns\n")
    fake_model.script(*shell_turn(bash("echo 2 > two.txt && rm one.txt")))
    await session.submit("second")
    fake_model.script(*shell_turn(bash("echo 3 > three.txt")))
    await session.submit("third")

    listed = await session.run_command("/rewind")
    assert [line.split()[0] for line in listed.text.splitlines()[1:4]] == ["1", "2", "3"]
    assert "second" in listed.text and "`/rewind --prompt N" in listed.text.splitlines()[4]

    assert (await session.run_command("/undo")).ok
    assert (await session.run_command("/undo")).ok
    assert tree_state(git_repo) == {**one, "between.txt": tree_state(git_repo)["between.txt"]}

    rewound = await session.run_command("/rewind 1")
    assert rewound.ok, rewound.text
    assert tree_state(git_repo) == start
    for _ in range(3):  # each redo puts back its own turn's changes (not the hand edit)
        assert (await session.run_command("/redo")).ok
    assert sorted(tree_state(git_repo)) == sorted([*start, "two.txt", "three.txt"])
    assert not (await session.run_command("/redo")).ok


async def test_a_new_turn_drops_what_was_undone(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("first")
    await session.run_command("/undo")
    fake_model.script(*shell_turn(bash("echo 2 > two.txt")))
    await session.submit("second")
    assert not (await session.run_command("/redo")).ok
    assert (await session.run_command("/undo")).ok
    assert not (git_repo / "two.txt").exists() and not (git_repo / "one.txt").exists()


async def test_a_turn_without_changes_leaves_no_checkpoint(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    fake_model.script({"tool_calls": [{"name": "read_file", "arguments": {"path": "app.py"}}]},
                      {"text": "It greets."})
    await session.submit("what does app.py do")
    result = await session.run_command("/undo")
    assert not result.ok and "Nothing to undo" in result.text


def test_modes_other_than_the_executable_bit_are_kept(git_repo: Path) -> None:
    """git records the executable bit; a restore keeps the file's other permission bits."""
    from valarmind_tui.checkpoints import ShadowRepo

    secret = git_repo / "secret.txt"
    secret.write_text("v1\n")
    os.chmod(secret, 0o600)
    repo = ShadowRepo(git_repo, git_repo.parent / "shadow")
    first = repo.snapshot()
    secret.write_text("v2\n")
    os.chmod(secret, 0o700)
    second = repo.snapshot()
    report, _ = repo.restore(first, second)
    assert report.written == ["secret.txt"] and secret.read_text() == "v1\n"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


async def test_a_shell_command_of_the_person_is_a_turn_too(
    tmp_path: Path, open_session: Any,
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "script.sh").write_text("echo hi\n")
    before = tree_state(root)
    session = open_session(root)
    await session.run_shell("chmod +x script.sh && echo out > out.txt && mv script.sh run.sh")
    assert (root / "run.sh").stat().st_mode & 0o111
    undone = await session.run_command("/undo")
    assert undone.ok, undone.text
    assert tree_state(root) == before
    listed = await session.run_command("/rewind")
    assert "!chmod +x script.sh" in listed.text and "(undone)" in listed.text


async def test_export_markdown_and_jsonl(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    import json

    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo 1 > one.txt")))
    await session.submit("make one")
    md = await session.run_command("/export md talk.md")
    assert md.ok, md.text
    text = (git_repo / "talk.md").read_text()
    assert "## You\n\nmake one" in text and "## ValarMind\n\nDone." in text
    assert "`delegate`" in text
    out = git_repo.parent / "talk.jsonl"
    assert (await session.run_command(f"/export jsonl {out}")).ok
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == session.history


async def test_preview_shows_the_diff_and_the_conflict_and_writes_nothing(
    git_repo: Path, fake_model: Any, open_session: Any,
) -> None:
    session = open_session(git_repo)
    fake_model.script(*shell_turn(bash("echo agent > a.txt && printf 'x\\n' >> app.py")))
    await session.submit("write")
    (git_repo / "a.txt").write_text("by hand\n")
    state = tree_state(git_repo)
    events: list[Any] = []
    session.bus.add_listener(events.append)

    preview = await session.run_command("/undo --preview")
    assert "would change" in preview.text and "Would restore: app.py" in preview.text
    assert "-x" in preview.text and "```diff" in preview.text
    assert "a.txt" in preview.text and "--force" in preview.text  # the conflict, named
    assert tree_state(git_repo) == state and not events
    listed = await session.run_command("/rewind 1 --preview")
    assert "Would restore: app.py" in listed.text and tree_state(git_repo) == state
    assert (await session.run_command("/undo")).text.count("a.txt") == 1
    assert (git_repo / "a.txt").read_text() == "by hand\n"
