"""write_file and edit_file: atomic writes, diffs, and the three matching stages."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from valarmind_tui.core.safe_files import ChangedOnDisk, atomic_write
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools

CODE = (
    "class Greeter:\n"
    "    def greet(self, name):\n"
    "        message = 'Hello ' + name\n"
    "        return message\n"
    "\n"
    "    def part(self, name):\n"
    "        return 'Bye ' + name\n"
)


@pytest.fixture
def code(git_repo: Path) -> Path:
    path = git_repo / "greeter.py"
    path.write_text(CODE)
    return path


async def test_write_creates_with_diff_and_keeps_mode(call, git_repo: Path) -> None:
    created = await call("write_file", path="pkg/new.py", content="x = 1\n")
    assert not created.is_error and created.output.startswith("Created pkg/new.py")
    assert (git_repo / "pkg/new.py").read_text() == "x = 1\n"
    assert created.diff is not None
    assert "+++ b/pkg/new.py" in created.diff and "+x = 1" in created.diff
    script = git_repo / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    updated = await call("write_file", path="run.sh", content="echo new\n")
    assert "-echo old" in (updated.diff or "") and "+echo new" in (updated.diff or "")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert [p.name for p in git_repo.iterdir() if p.name.endswith(".tmp")] == []


async def test_preview_shows_the_diff_without_writing(ctx: ToolContext, git_repo: Path) -> None:
    tool = builtin_tools().get("write_file")
    assert tool is not None
    preview = await tool.preview(tool.parse({"path": "app.py", "content": "gone\n"}), ctx)
    assert preview.diff is not None
    assert "+gone" in preview.diff and "-def greet(name):" in preview.diff
    assert "def greet" in (git_repo / "app.py").read_text()


async def test_failed_write_leaves_the_old_file(call, git_repo: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device", dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    result = await call("write_file", path="app.py", content="half-writ")
    assert result.is_error and "No space left on device" in result.output
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'Hello ' + name\n"
    assert [p.name for p in git_repo.iterdir() if ".tmp" in p.name] == []


async def test_write_through_symlink_escape_is_refused(call, git_repo: Path) -> None:
    outside = git_repo.parent / "outside"
    outside.mkdir()
    os.symlink(outside, git_repo / "out")
    result = await call("write_file", path="out/evil.py", content="x\n")
    assert result.is_error and "outside the project root" in result.output
    assert not (outside / "evil.py").exists()
    dotdot = await call("edit_file", path="../outside/x", old_string="a", new_string="b")
    assert dotdot.is_error and "outside the project root" in dotdot.output


async def test_exact_edit(call, code: Path) -> None:
    result = await call("edit_file", path="greeter.py", old_string="'Bye ' + name",
                        new_string="f'Bye {name}'")
    assert not result.is_error
    assert code.read_text() == CODE.replace("'Bye ' + name", "f'Bye {name}'")
    assert result.diff is not None
    assert "-        return 'Bye ' + name\n+        return f'Bye {name}'" in result.diff


async def test_whitespace_tolerant_edit_reindents(call, code: Path) -> None:
    old = "def greet(self, name):\n    message = 'Hello '  +  name\n    return message\n"
    new = "def greet(self, name):\n    return f'Hello {name}'\n"
    result = await call("edit_file", path="greeter.py", old_string=old, new_string=new)
    assert not result.is_error, result.output
    assert "ignoring whitespace" in result.output
    assert code.read_text().startswith(
        "class Greeter:\n    def greet(self, name):\n        return f'Hello {name}'\n\n"
    )


async def test_fuzzy_edit_replaces_the_close_unique_text(call, code: Path) -> None:
    old = ("    def greet(self, name):\n        mesage = 'Hello ' + name\n"
           "        return mesage\n")
    new = "    def greet(self, name):\n        return 'Hi ' + name\n"
    result = await call("edit_file", path="greeter.py", old_string=old, new_string=new)
    assert not result.is_error, result.output
    assert "closest text, lines 2-4" in result.output
    assert "    def greet(self, name):\n        return 'Hi ' + name\n\n" in code.read_text()
    assert "message" not in code.read_text()


async def test_no_match_quotes_the_closest_text(call, code: Path) -> None:
    result = await call("edit_file", path="greeter.py",
                        old_string="def farewell(self, who):\n    return 'Ciao ' + who\n",
                        new_string="pass\n")
    assert result.is_error
    assert "not found" in result.output
    assert "lines 6-7" in result.output
    quoted = "     6\t    def part(self, name):\n     7\t        return 'Bye ' + name"
    assert quoted in result.output
    assert code.read_text() == CODE


async def test_ambiguous_match_needs_context_or_replace_all(call, git_repo: Path) -> None:
    path = git_repo / "dup.py"
    path.write_text("x = 1\ny = 2\nx = 1\n")
    result = await call("edit_file", path="dup.py", old_string="x = 1", new_string="x = 3")
    assert result.is_error and "matches 2 places" in result.output and "lines 1, 3" in result.output
    assert path.read_text() == "x = 1\ny = 2\nx = 1\n"
    every = await call("edit_file", path="dup.py", old_string="x = 1", new_string="x = 3",
                       replace_all=True)
    assert "Replaced 2 occurrences" in every.output
    assert path.read_text() == "x = 3\ny = 2\nx = 3\n"


async def test_crlf_file_keeps_its_line_endings(call, git_repo: Path) -> None:
    path = git_repo / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await call("edit_file", path="win.txt", old_string="two\nthree\n",
                        new_string="2\n3\n")
    assert not result.is_error, result.output
    assert path.read_bytes() == b"one\r\n2\r\n3\r\n"


async def test_edit_errors_the_model_can_act_on(call, git_repo: Path) -> None:
    missing = await call("edit_file", path="nope.py", old_string="a", new_string="b")
    assert missing.is_error and "does not exist" in missing.output
    same = await call("edit_file", path="app.py", old_string="a", new_string="a")
    assert same.is_error and "same" in same.output
    (git_repo / "img.png").write_bytes(b"\x89PNG\0\0")
    binary = await call("edit_file", path="img.png", old_string="PNG", new_string="JPG")
    assert binary.is_error and "binary" in binary.output
    created = await call("edit_file", path="fresh.txt", old_string="", new_string="new\n")
    assert not created.is_error and (git_repo / "fresh.txt").read_text() == "new\n"


async def test_edit_preview_diff_before_writing(ctx: ToolContext, code: Path) -> None:
    tool = builtin_tools().get("edit_file")
    assert tool is not None
    params = tool.parse({"path": "greeter.py", "old_string": "'Bye '", "new_string": "'Ciao '"})
    preview = await tool.preview(params, ctx)
    assert preview.diff is not None and "+        return 'Ciao ' + name" in preview.diff
    assert code.read_text() == CODE


# -- a file holding a secret the model saw masked ---------------------------------------------
SETTINGS = 'KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"\nTIMEOUT = 30\n'


async def test_an_edit_beside_a_masked_secret_keeps_it(call, git_repo: Path) -> None:
    (git_repo / "settings.py").write_text(SETTINGS)
    done = await call("edit_file", path="settings.py", old_string="TIMEOUT = 30",
                      new_string="TIMEOUT = 60")
    assert not done.is_error, done.output
    assert (git_repo / "settings.py").read_text() == SETTINGS.replace("30", "60")


async def test_an_edit_through_the_marker_says_why_and_changes_nothing(
        call, git_repo: Path) -> None:
    (git_repo / "settings.py").write_text(SETTINGS)
    masked = 'KEY = "[secret masked: Stripe key]"\nTIMEOUT = 30'
    refused = await call("edit_file", path="settings.py", old_string=masked,
                         new_string=masked.replace("30", "60"))
    assert refused.is_error and "leaves that line out" in refused.output
    assert (git_repo / "settings.py").read_text() == SETTINGS


def test_a_write_refused_when_the_file_changed_keeps_the_other_writers_text(
    git_repo: Path,
) -> None:
    path = git_repo / "shared.txt"
    path.write_text("theirs\n")
    with pytest.raises(ChangedOnDisk):
        atomic_write(path, "mine\n", unchanged=lambda: path.read_text() == "what I read\n")
    assert path.read_text() == "theirs\n"
    assert [p.name for p in git_repo.iterdir() if p.name.endswith(".tmp")] == []
    atomic_write(path, "mine\n", unchanged=lambda: path.read_text() == "theirs\n")
    assert path.read_text() == "mine\n"
