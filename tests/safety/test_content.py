"""redact_sensitive_diff on hand-made diffs (the real-git cases are in tests/security), and the
ref checks of tools/git_refs."""

from __future__ import annotations

from pathlib import Path

import pytest

from valarmind_tui.safety.content import (
    CUT_NOTE,
    holds_secrets,
    redact_sensitive_diff,
    unquote_git_path,
)
from valarmind_tui.tools.common import cap_middle
from valarmind_tui.tools.git.refs import BadRevision, revision_sides

SECRET = "hunter2-secret-value"


def section(old: str, new: str, body: str = f"@@ -0,0 +1 @@\n+{SECRET}") -> str:
    return f"diff --git a/{old} b/{new}\nindex 1..2 100644\n--- a/{old}\n+++ b/{new}\n{body}"


def test_a_harmless_file_is_kept_whole() -> None:
    diff = section("app.py", "app.py", "@@ -1 +1 @@\n-a\n+b")
    assert redact_sensitive_diff(diff) == (diff, [])


def test_the_sensitive_section_loses_its_body_only() -> None:
    diff = section("app.py", "app.py", "@@ -1 +1 @@\n-a\n+b") + "\n" + section(".env", ".env")
    text, left_out = redact_sensitive_diff(diff)
    assert SECRET not in text and left_out == [".env"]
    assert "+b" in text and "[.env: content left out: the file may hold secrets]" in text


def test_rename_from_a_sensitive_name() -> None:
    diff = ("diff --git a/.env b/notes.txt\nsimilarity index 80%\nrename from .env\n"
            f"rename to notes.txt\n--- a/.env\n+++ b/notes.txt\n@@ -1 +1 @@\n+{SECRET}")
    text, left_out = redact_sensitive_diff(diff)
    assert SECRET not in text and left_out == ["notes.txt"]


def test_rename_to_a_sensitive_name() -> None:
    diff = ("diff --git a/notes.txt b/config/.env\nrename from notes.txt\n"
            f"rename to config/.env\n--- a/notes.txt\n+++ b/config/.env\n@@ -1 +1 @@\n+{SECRET}")
    assert SECRET not in redact_sensitive_diff(diff)[0]


def test_quoted_and_spaced_names() -> None:
    quoted = ('diff --git "a/dir/\\303\\251/.env" "b/dir/\\303\\251/.env"\n'
              f'--- "a/dir/\\303\\251/.env"\n+++ "b/dir/\\303\\251/.env"\n@@ -0,0 +1 @@\n+{SECRET}')
    assert SECRET not in redact_sensitive_diff(quoted)[0]
    spaced = section("my dir/id_rsa", "my dir/id_rsa")
    assert SECRET not in redact_sensitive_diff(spaced)[0]
    assert unquote_git_path('"a/caf\\303\\251"') == "a/café"


def test_binary_patches_are_left_out() -> None:
    diff = ("diff --git a/logo.png b/logo.png\nindex 1..2 100644\nGIT binary patch\n"
            f"literal 12\n{SECRET}\n")
    text, left_out = redact_sensitive_diff(diff)
    assert SECRET not in text and "binary content left out" in text and left_out == []


def test_combined_merge_diff() -> None:
    diff = ("diff --cc .env\nindex 1,2..3\n--- a/.env\n+++ b/.env\n"
            f"@@@ -1,1 -1,1 +1,1 @@@\n++{SECRET}")
    assert SECRET not in redact_sensitive_diff(diff)[0]


def test_lines_after_a_cut_are_dropped_until_the_next_header() -> None:
    big = section("a.txt", "a.txt", "@@ -1 +1 @@\n" + "+x\n" * 3000)
    secret = section(".env", ".env", "@@ -0,0 +1,3000 @@\n" + f"+{SECRET}\n" * 3000)
    tail = section("z.txt", "z.txt", "@@ -1 +1 @@\n+tail-line")
    capped = cap_middle(big + "\n" + secret + "\n" + tail, 20_000)
    assert SECRET in capped  # the cut kept .env's body but not its header
    text, _ = redact_sensitive_diff(capped)
    assert SECRET not in text and CUT_NOTE in text and "+tail-line" in text


def test_work_tree_symlink_is_judged_by_its_target(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / "notes.txt").symlink_to(".env")
    (tmp_path / "outside.txt").symlink_to("/etc/hostname")
    assert holds_secrets(tmp_path, "notes.txt") and holds_secrets(tmp_path, "outside.txt")
    assert not holds_secrets(tmp_path, "README.md")
    assert SECRET not in redact_sensitive_diff(section("notes.txt", "notes.txt"), tmp_path)[0]


@pytest.mark.parametrize(("revision", "sides"), [
    ("HEAD~1", ["HEAD~1"]), ("main..HEAD", ["main", "HEAD"]), ("a...b", ["a", "b"]),
    ("main..", ["main", "HEAD"]), ("HEAD@{1}", ["HEAD@{1}"]),
])
def test_revision_sides(revision: str, sides: list[str]) -> None:
    assert revision_sides(revision) == sides


@pytest.mark.parametrize("revision", [
    "", "-p", "--output=x", "HEAD..--output=x", "a..b..c", "HEAD rm", "HEAD\nx", "..", "x" * 300,
])
def test_revision_sides_refused(revision: str) -> None:
    with pytest.raises(BadRevision):
        revision_sides(revision)
