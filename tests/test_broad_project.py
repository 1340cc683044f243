"""A project at `/` or at home (issue 29, item 4): said at start, no walk into the kernel's
trees, and the map's background work ends with the session."""

from __future__ import annotations

import os
import time
from pathlib import Path

from valarmind_tui.context.manifests.read import read_manifests
from valarmind_tui.core.events import Notice
from valarmind_tui.repomap.refine import spawn_refiner
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.safety.ignore import GitignoreWalker
from valarmind_tui.safety.paths import broad_root_warning
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings


def test_the_whole_disk_and_home_are_said_a_project_folder_is_not(tmp_path: Path) -> None:
    assert "the whole disk (/)" in (broad_root_warning(Path("/")) or "")
    assert "your home folder" in (broad_root_warning(tmp_path, home=tmp_path) or "")
    assert broad_root_warning(tmp_path / "x", home=tmp_path) is None


async def test_a_session_at_home_starts_with_the_warning(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    live = build_session(Settings(), home, approver=PolicyApprover())
    events = live.bus.subscribe()
    await live.start()
    await live.close()
    said = []
    while (event := events.get_nowait()) is not None:
        if isinstance(event, Notice):
            said.append(event.message)
    assert any("your home folder" in m for m in said), said


def test_the_walk_at_the_root_leaves_the_kernels_trees_out() -> None:
    names = {e.name for e in GitignoreWalker(Path("/")).entries(Path("/"), [])}
    assert "proc" not in names and "sys" not in names and "dev" not in names


def test_manifests_never_look_into_the_kernels_trees(tmp_path: Path) -> None:
    """/proc/<pid> folders vanish mid-glob (at `/` this raised FileNotFoundError now and then);
    a project that links /proc in is read without looking there."""
    (tmp_path / "proc").symlink_to("/proc")
    (tmp_path / "app.py").write_text("x = 1\n")
    for _ in range(3):
        found = read_manifests(tmp_path)
        assert "dotnet" not in found.ecosystems


async def test_a_sessions_refiners_end_when_it_closes(tmp_path: Path) -> None:
    """After /quit a refiner of a big tree ran on for ~60 s at ~900 MB."""
    root = tmp_path / "p"
    root.mkdir()
    for i in range(400):
        (root / f"m{i}.py").write_text("".join(f"def f{i}_{j}(x):\n    return x\n"
                                               for j in range(200)))
    live = build_session(Settings(), root, approver=PolicyApprover())
    refiner = spawn_refiner(root, 1024, [], [], tmp_path / "cache")
    time.sleep(0.2)
    assert refiner.poll() is None, "still parsing"
    await live.close()
    assert refiner.poll() is not None
    deadline = time.monotonic() + 10
    while _live_members(refiner.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live_members(refiner.pid), "the refiner's pool outlived the session"


def _live_members(group: int) -> list[int]:
    """Processes of a process group still running (zombies waiting to be reaped are not)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(entry.name))
    return found
