"""Notes the person asks to remember: a prompt line starting with `#` (issue #35).

A note goes, where the person chooses, into one of three context files the agents already read
(setup/context_files.py): the project's VALARMIND.md (shared with the team), the project's
`.valarmind/local.md` (theirs alone; kept out of git through `.git/info/exclude`), or their own
`~/.config/valarmind/VALARMIND.md` (every project). It is a bullet under a `## Notes` heading,
outside /init's generated blocks, so /init keeps it. Nothing is saved without the person having
seen the note and the file (the faces ask); no model turn is spent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.core.safe_files import atomic_write, read_regular_text
from valarmind_tui.safety.paths import PathOutsideProject, resolve_in_project

MemoryPlace = Literal["project", "local", "user"]
PLACES: tuple[MemoryPlace, ...] = ("project", "local", "user")
PLACE_HELP = {
    "project": "the project's VALARMIND.md (shared with everyone who works on it)",
    "local": "the project's .valarmind/local.md (yours alone, kept out of git)",
    "user": "your ~/.config/valarmind/VALARMIND.md (every project)",
}
HEADING = "## Notes"
MAX_NOTE_CHARS = 2_000
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]")


class NoteNotSaved(ValarMindError):
    """A note could not be saved; the message says why and the file is left as it was."""


@dataclass(frozen=True)
class SavedNote:
    path: Path
    shown: str
    """The file as the person knows it (`VALARMIND.md`, `~/.config/valarmind/VALARMIND.md`)."""
    note: str


def note_text(line: str) -> str | None:
    """The note in a prompt line `# remember this`, or None when the line is not a note (a
    Markdown heading `## x`, a `#` alone, several lines)."""
    if not line.startswith("#") or line.startswith("##") or "\n" in line.strip():
        return None
    note = _CONTROLS.sub("", line[1:]).strip()
    return note or None


def memory_file(place: MemoryPlace, project_root: Path, home: Path) -> tuple[Path, str]:
    """The file a note for `place` goes to, and its name as shown."""
    if place == "project":
        return project_root / "VALARMIND.md", "VALARMIND.md"
    if place == "local":
        return project_root / ".valarmind" / "local.md", ".valarmind/local.md"
    return home / ".config" / "valarmind" / "VALARMIND.md", "~/.config/valarmind/VALARMIND.md"


def save_note(place: MemoryPlace, note: str, project_root: Path, home: Path) -> SavedNote:
    """Add `note` as a bullet under the file's `## Notes` heading (made when missing)."""
    note = _CONTROLS.sub("", note).strip()
    if not note:
        raise NoteNotSaved("an empty note: write it after the #")
    if len(note) > MAX_NOTE_CHARS:
        raise NoteNotSaved(f"a note of {len(note):,} characters; at most {MAX_NOTE_CHARS:,}")
    path, shown = memory_file(place, project_root, home)
    base = home if place == "user" else project_root
    _check_inside(path, base, shown)
    try:
        old = read_regular_text(path) if path.exists() or path.is_symlink() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise NoteNotSaved(f"{shown} cannot be read ({exc}); the note was not saved") from exc
    try:
        atomic_write(path, with_note(old, note))
        if place == "local":
            _exclude_from_git(project_root)
    except OSError as exc:
        raise NoteNotSaved(f"{shown} cannot be written ({exc.strerror or exc}); "
                           "it was left as it was") from exc
    return SavedNote(path, shown, note)


def with_note(text: str, note: str) -> str:
    """`text` with `- note` appended to its `## Notes` section (added at the end if none)."""
    bullet = f"- {note}\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == HEADING), None)
    if start is None:
        gap = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{gap}{HEADING}\n\n{bullet}"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")
                or lines[i].startswith("<!-- valarmind:generated")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # after the section's last bullet, before the blank lines that close it
    if lines[end - 1:end] and not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    lines.insert(end, bullet)
    return "".join(lines)


def _check_inside(path: Path, base: Path, shown: str) -> None:
    """The file and its folders are where they seem: no link leading out of `base`."""
    if path.is_symlink():
        raise NoteNotSaved(f"{shown} is a symbolic link; the note was not saved")
    try:
        resolve_in_project(base, path)
    except PathOutsideProject as exc:
        raise NoteNotSaved(f"{shown} leads outside {base} ({exc}); the note was not saved"
                           ) from None


def _exclude_from_git(project_root: Path) -> None:
    """`.valarmind/local.md` stays out of commits: listed in the repository's own exclude file
    (never the shared .gitignore), when the project is a plain git checkout."""
    info = project_root / ".git" / "info"
    if not (project_root / ".git").is_dir() or (project_root / ".git").is_symlink():
        return
    exclude = info / "exclude"
    if exclude.is_symlink():
        return
    current = read_regular_text(exclude) if exclude.exists() else ""
    if "/.valarmind/local.md" in current.splitlines():
        return
    prefix = "" if not current or current.endswith("\n") else "\n"
    atomic_write(exclude, f"{current}{prefix}/.valarmind/local.md\n")
