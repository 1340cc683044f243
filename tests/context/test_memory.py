"""`# note` memory (issue #35): where a note lands, what is refused, and that the agents read it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.context.init.valarmind_md import merge_update, wrap
from valarmind_tui.context.memory import NoteNotSaved, note_text, save_note, with_note


def test_a_note_is_a_single_hash_line_not_a_heading() -> None:
    assert note_text("# always run make lint") == "always run make lint"
    assert note_text("#use tabs") == "use tabs"
    assert note_text("## Title") is None and note_text("#") is None
    assert note_text("# a\nsecond line") is None
    assert note_text("# bell\x07 and escape\x1b[2J") == "bell and escape[2J"


def test_notes_join_the_notes_section_wherever_it_is() -> None:
    text = "# Project\n\n## Notes\n\n- first\n\n## Commands\n\nmake\n"
    assert with_note(text, "second") == (
        "# Project\n\n## Notes\n\n- first\n- second\n\n## Commands\n\nmake\n")
    assert with_note("", "only") == "## Notes\n\n- only\n"
    assert with_note("no newline", "x") == "no newline\n\n## Notes\n\n- x\n"


def test_saved_in_each_place_and_kept_by_init(tmp_path: Path, git_repo: Path) -> None:
    home = tmp_path / "home"
    (git_repo / "VALARMIND.md").write_text(wrap("objective", "## Objective\n\nold\n") + "\n")
    saved = save_note("project", "the API is versioned", git_repo, home)
    assert saved.shown == "VALARMIND.md"
    assert "- the API is versioned" in (git_repo / "VALARMIND.md").read_text()
    regenerated = wrap("objective", "## Objective\n\nnew\n") + "\n"
    merged = merge_update((git_repo / "VALARMIND.md").read_text(), regenerated).text
    assert "new" in merged and "old" not in merged
    assert "- the API is versioned" in merged  # /init rewrites its blocks, keeps notes

    save_note("local", "my port is 8001", git_repo, home)
    assert (git_repo / ".valarmind" / "local.md").read_text() == "## Notes\n\n- my port is 8001\n"
    exclude = (git_repo / ".git" / "info" / "exclude").read_text()
    assert "/.valarmind/local.md" in exclude.splitlines()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=git_repo,
                            capture_output=True, text=True, check=True).stdout
    assert ".valarmind" not in status  # stays out of commits

    save_note("user", "answer in British English", git_repo, home)
    assert "answer in British English" in (
        home / ".config" / "valarmind" / "VALARMIND.md").read_text()


def test_a_linked_memory_file_is_refused_and_left_alone(tmp_path: Path, git_repo: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("theirs\n")
    (git_repo / "VALARMIND.md").symlink_to(outside)
    with pytest.raises(NoteNotSaved, match="symbolic link"):
        save_note("project", "x", git_repo, tmp_path / "home")
    assert outside.read_text() == "theirs\n"
    (git_repo / ".valarmind").symlink_to(tmp_path)
    with pytest.raises(NoteNotSaved, match="outside"):
        save_note("local", "x", git_repo, tmp_path / "home")
    assert not (tmp_path / "local.md").exists()


def test_a_note_saved_in_the_repl_reaches_the_next_prompt(
        git_repo: Path, fake_model: Any) -> None:
    """Through the REPL as a person uses it: `# note`, pick 2, then a prompt; the note is in
    the system prompt the model receives, and no model turn was spent on the note."""
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(ScriptedTurn(text="Noted."))
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
        input="# the staging database is read-only\n2\nwhat should I know?\n/quit\n",
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    assert "Remember “the staging database is read-only” where?" in out.stdout
    assert "Saved to `.valarmind/local.md`" in out.stdout
    assert "- the staging database is read-only" in (
        git_repo / ".valarmind" / "local.md").read_text()
    assert len(fake_model.requests) == 1  # the note itself cost no model turn
    system = fake_model.requests[0]["messages"][0]
    assert system["role"] == "system"
    assert "the staging database is read-only" in str(system["content"])


def test_memory_opens_the_chosen_file_in_the_editor(git_repo: Path, fake_model: Any) -> None:
    """/memory PLACE runs the person's $EDITOR on that file (here a shell that appends a line,
    as an editor saving would); the path arrives as one argument, never an option."""
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')
    (git_repo / "VALARMIND.md").write_text("# demo\n")
    editor = "sh -c 'printf \"%s\\n\" \"- edited by hand\" >> \"$1\"' editor"
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
        input="/memory project\n/memory\n/quit\n", capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAKE_API_KEY": "sk-test", "EDITOR": editor, "VISUAL": ""})
    assert out.returncode == 0, out.stderr
    assert (git_repo / "VALARMIND.md").read_text() == "# demo\n- edited by hand\n- edited by hand\n"
    assert "(not made yet)" in out.stdout  # /memory lists the local and user files too
    assert not fake_model.requests
