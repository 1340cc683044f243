"""Upkeep of the shadow repository: the warm-up at session start, pruning old turns, and the
size cap as the user's `[checkpoints]` settings set them."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import bash, shell_turn
from tests.conftest import write_user_config
from valarmind_tui.checkpoints import SessionCheckpoints
from valarmind_tui.checkpoints.shadow import ShadowError
from valarmind_tui.checkpoints.upkeep import prune
from valarmind_tui.core.events import CheckpointCreated
from valarmind_tui.settings.sections import CheckpointSettings


async def _turns(checkpoints: SessionCheckpoints, root: Path, count: int) -> None:
    for n in range(1, count + 1):
        checkpoints.begin(f"turn {n}")
        await checkpoints.before_change("bash")
        (root / "f.txt").write_text(f"version {n} of the file\n")
        await checkpoints.end()


def _has(checkpoints: SessionCheckpoints, data: bytes) -> bool:
    blob = checkpoints.repo.git("hash-object", "--stdin", input=data).decode().strip()
    try:
        checkpoints.repo.git("cat-file", "-e", blob)
    except ShadowError:
        return False
    return True


async def test_prune_keeps_the_newest_turns_and_deletes_what_only_old_ones_reached(
    git_repo: Path,
) -> None:
    checkpoints = SessionCheckpoints(git_repo, "s1")
    await _turns(checkpoints, git_repo, 5)
    assert _has(checkpoints, b"version 1 of the file\n")
    report = prune(checkpoints.repo, CheckpointSettings(keep_turns=3))
    assert (report.kept, report.pruned) == (3, 2)
    assert [t.prompt for t in checkpoints.turns()] == ["turn 3", "turn 4", "turn 5"]
    assert not _has(checkpoints, b"version 1 of the file\n")
    assert _has(checkpoints, b"version 2 of the file\n")  # turn 3 starts from it
    assert checkpoints.repo.git("fsck", "--no-dangling") == b""
    undone = await checkpoints.undo()
    assert undone.turn == 5 and (git_repo / "f.txt").read_text() == "version 4 of the file\n"


async def test_prune_by_age_across_sessions(git_repo: Path) -> None:
    first, second = SessionCheckpoints(git_repo, "a"), SessionCheckpoints(git_repo, "b")
    await _turns(first, git_repo, 2)
    await _turns(second, git_repo, 1)
    limits = CheckpointSettings(max_age_days=30)
    assert prune(first.repo, limits).pruned == 0
    report = prune(first.repo, limits, now=time.time() + 31 * 86400)
    assert report.pruned == 3 and first.turns() == [] and second.turns() == []


async def test_warm_up_at_session_start_fills_the_shadow_index(
    tmp_path: Path, open_session: Any,
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    for n in range(300):
        (root / f"m{n}.py").write_text(f"x = {n}\n")
    session = open_session(root)
    thread = session.checkpoints.start_warm_up()
    await asyncio.to_thread(thread.join, 60)
    repo = session.checkpoints.repo
    assert len(repo.git("ls-files", "-z").split(b"\0")) - 1 == 300
    # nothing left for the first checkpoint to hash: no new or changed file
    assert repo.git("ls-files", "-o", "-m", "--exclude-standard") == b""
    assert (repo.git_dir / "valarmind-pruned").is_file()


@pytest.mark.parametrize("kind", ["git", "plain"])
async def test_the_size_cap_from_settings_is_reported_by_undo(
    kind: str, git_repo: Path, tmp_path: Path, fake_model: Any, open_session: Any,
) -> None:
    write_user_config("[checkpoints]\nmax_file_bytes = 1000\n")
    root = git_repo if kind == "git" else tmp_path / "plain"
    root.mkdir(exist_ok=True)
    (root / "data.bin").write_bytes(b"\1" * 3000)
    session = open_session(root)
    events: list[Any] = []
    session.bus.add_listener(events.append)
    fake_model.script(*shell_turn(bash("head -c 5000 /dev/zero > data.bin && echo s > s.txt")))
    await session.submit("grow the data")
    skipped = {e.skipped for e in events if isinstance(e, CheckpointCreated)}
    assert skipped == {("data.bin",)}
    undone = await session.run_command("/undo")
    assert undone.ok, undone.text
    assert "Could not restore" in undone.text and "data.bin" in undone.text
    assert not (root / "s.txt").exists() and (root / "data.bin").stat().st_size == 5000
    du = subprocess.run(["du", "-sk", str(session.checkpoints.repo.git_dir / "objects")],
                        text=True, capture_output=True, check=True).stdout.split()[0]
    assert int(du) < 200
