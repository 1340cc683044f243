"""Checkpoint evasion (issue #27): the agent undo protects tries to switch undo off, or to make
undo write outside the project. Each test is real `valarmind -p` turns (the fake model scripts
the agent's commands), then a real `valarmind undo`, on a real repository.

The sandbox is off in most: it changes nothing for these attacks (the project is writable inside
it, a symlink is made the same way) and checkpoints run outside it anyway; one swap is made by a
sandboxed command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import SHELL_AGENT, bash, shell_turn
from tests.conftest import write_user_config
from tests.test_headless import model_flags, valarmind
from valarmind_tui.core.user_dirs import user_config_dir

ENV = {"FAKE_API_KEY": "sk-test"}
pytestmark = pytest.mark.usefixtures("warm_runs")
UTIL = "def util():\n    return 1\n"


@pytest.fixture
def project(git_repo: Path) -> Path:
    """The repository with a tracked folder `src/` (util.py in it) and a shell agent."""
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n')
    agents = user_config_dir() / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "shell.md").write_text(SHELL_AGENT)
    (git_repo / "src").mkdir()
    (git_repo / "src" / "util.py").write_text(UTIL)
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "src"],
                   cwd=git_repo, check=True)
    return git_repo


@pytest.fixture
def outside(git_repo: Path) -> Path:
    """A folder beside the project the agent points links at, with a file of the person's."""
    folder = git_repo.parent / "outside"
    folder.mkdir()
    (folder / "util.py").write_text("outside, not the project's\n")
    (folder / "notes.txt").write_text("the person's notes\n")
    return folder


def turn(fake_model: Any, root: Path, command: str, *, first: bool = False) -> None:
    fake_model.script(*shell_turn(bash(command)))
    again = () if first else ("--continue",)
    out = valarmind(*again, "-p", "work", "--output-format", "jsonl", "--permission-mode",
                    "bypass", *model_flags(fake_model), cwd=root, env=ENV)
    assert out.returncode == 0, out.stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_folder_swapped_for_an_outside_link_then_a_deleting_turn_is_undone(
        project: Path, outside: Path, fake_model: Any) -> None:
    before_outside = snapshot(outside)
    turn(fake_model, project, f"rm -rf src && ln -s {outside} src", first=True)
    turn(fake_model, project, "rm README.md")
    assert not (project / "README.md").exists()

    undone = valarmind("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert "Traceback" not in undone.stderr
    assert (project / "README.md").read_text() == "# demo\n"

    again = valarmind("undo", cwd=project)
    assert again.returncode == 0, again.stderr
    assert not (project / "src").is_symlink()
    assert (project / "src" / "util.py").read_text() == UTIL
    assert snapshot(outside) == before_outside


def test_folder_swap_made_inside_the_sandbox_is_undone(
        project: Path, fake_model: Any) -> None:
    """The same swap by a sandboxed command (bubblewrap), the link pointing at a folder the
    sandbox shows read-only (under /var/tmp, not the sandbox's private /tmp)."""
    from valarmind_tui.safety.sandbox.wrap import Sandbox

    box = Sandbox.detect("auto", False)
    if not box.active:
        pytest.skip(f"bubblewrap cannot run on this machine: {box.reason}")
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "auto"\n')
    outside = Path(tempfile.mkdtemp(prefix="valarmind-outside-", dir="/var/tmp"))
    try:
        (outside / "util.py").write_text("outside\n")
        turn(fake_model, project, f"rm -rf src && ln -s {outside} src", first=True)
        turn(fake_model, project, "rm README.md")
        assert (project / "src").is_symlink() and not (project / "README.md").exists()
        assert valarmind("undo", cwd=project).returncode == 0
        undone = valarmind("undo", cwd=project)
        assert undone.returncode == 0, undone.stderr
        assert (project / "README.md").read_text() == "# demo\n"
        assert (project / "src" / "util.py").read_text() == UTIL
        assert snapshot(outside) == {"util.py": b"outside\n"}
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_writes_through_an_outside_folder_link_are_not_undone_into_it(
        project: Path, outside: Path, fake_model: Any) -> None:
    """The agent links src/ out and writes through the link; undo puts src/ back as a folder
    and never writes the outside folder (neither the project's util.py nor a removal)."""
    turn(fake_model, project,
         f"rm -rf src && ln -s {outside} src && echo changed > src/notes.txt", first=True)
    after_turn = snapshot(outside)
    undone = valarmind("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert (project / "src" / "util.py").read_text() == UTIL
    assert snapshot(outside) == after_turn


def test_file_swapped_for_a_link_to_etc_passwd_is_stored_as_a_link(
        project: Path, fake_model: Any) -> None:
    passwd = Path("/etc/passwd").read_bytes()
    turn(fake_model, project, "rm app.py && ln -s /etc/passwd app.py", first=True)
    turn(fake_model, project, "echo more >> README.md")
    assert valarmind("undo", cwd=project).returncode == 0
    assert (project / "README.md").read_text() == "# demo\n"
    assert valarmind("redo", cwd=project).returncode == 0
    undone = valarmind("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    undone = valarmind("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert not (project / "app.py").is_symlink()
    assert (project / "app.py").read_text().startswith("def greet")
    assert Path("/etc/passwd").read_bytes() == passwd


def test_forced_undo_replaces_a_link_made_by_hand_instead_of_writing_through_it(
        project: Path, outside: Path, fake_model: Any) -> None:
    """After the turn, app.py becomes a link to an outside file; `undo --force` puts the file
    back in place of the link, the outside file keeps its bytes."""
    turn(fake_model, project, "echo 'x = 1' > app.py && echo new > src/util.py", first=True)
    (project / "app.py").unlink()
    (project / "app.py").symlink_to(outside / "notes.txt")
    before_outside = snapshot(outside)
    undone = valarmind("undo", "--force", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert not (project / "app.py").is_symlink()
    assert (project / "app.py").read_text().startswith("def greet")
    assert snapshot(outside) == before_outside


def test_forced_undo_never_writes_through_a_folder_linked_out_by_hand(
        project: Path, outside: Path, fake_model: Any) -> None:
    """After a turn that edited src/util.py, src/ becomes a link to the outside folder (which
    has its own util.py); `undo --force` must not write the project's util.py there."""
    turn(fake_model, project, "echo changed > src/util.py && echo made > src/new.py",
         first=True)
    shutil.rmtree(project / "src")
    (project / "src").symlink_to(outside)
    before_outside = snapshot(outside)
    undone = valarmind("undo", "--force", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert snapshot(outside) == before_outside
    assert (project / "src" / "util.py").read_text() == UTIL


def test_a_failing_checkpoint_is_a_message_not_a_crash(
        project: Path, fake_model: Any) -> None:
    """The shadow repository loses its objects after a turn (a disk error, a person's
    clean-up): undo says so plainly instead of a traceback."""
    turn(fake_model, project, "echo changed > app.py", first=True)
    data = Path(os.environ["XDG_DATA_HOME"]) / "valarmind" / "checkpoints"
    for shadow in data.iterdir():
        if shadow.is_dir():
            shutil.rmtree(shadow / "objects")
    undone = valarmind("undo", cwd=project)
    assert undone.returncode != 0
    assert "Traceback" not in undone.stderr
    assert "checkpoint" in undone.stderr.lower()
