"""Project context: VALARMIND.md, `.valarmind/local.md` (personal, git-ignored), and the
AGENTS.md / CLAUDE.md / GEMINI.md files people already have (setup/context_files.py finds them:
the person's own, then the project's from its root down to the starting folder), with `@path`
imports resolved.

An import is a line-leading or space-preceded `@relative/path` naming a file inside the project
(or, for the person's own files, inside their home; symlinks resolved, then checked); imports
nest up to 5 deep, a cycle or a missing file is skipped, and text inside code fences is left
alone. Each file is read once: one already loaded is not imported again (ruff's CLAUDE.md is
`@AGENTS.md`), nor loaded again after it was imported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.core.safe_files import read_regular_bytes
from valarmind_tui.setup.context_files import (
    context_candidates,
    folder_candidates,
    start_folders,
)

MAX_IMPORT_DEPTH = 5
MAX_IMPORT_BYTES = 200_000
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:\./|\.\./)?[\w./-]+\.[\w]+)", re.MULTILINE)
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class ContextFile:
    """One loaded context file, imports expanded."""

    path: str
    """As shown: relative to the project root, or `~/...` for the person's own."""
    text: str
    imports: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """Bytes of the text, imports expanded (what /context shows)."""
        return len(self.text.encode())


@dataclass
class ProjectContext:
    """All project context files, in priority order."""

    files: list[ContextFile] = field(default_factory=list)
    loaded: dict[Path, str] = field(default_factory=dict)
    """Every file in the context (loaded, imported, or nested since), by resolved path."""

    @property
    def text(self) -> str:
        return "\n\n".join(f"<!-- {f.path} -->\n{f.text.strip()}" for f in self.files)

    def __bool__(self) -> bool:
        return bool(self.files)


class ContextLoader:
    """Loads and caches the project context; call `invalidate()` after writing VALARMIND.md.
    `cwd` is the folder the run started in (its folders' files load too) and `home` the
    person's (their own files)."""

    def __init__(self, project_root: Path, cwd: Path | None = None,
                 home: Path | None = None) -> None:
        self.root = project_root.resolve()
        self.cwd = cwd
        self.home = home
        self._cached: ProjectContext | None = None
        self._scanned: set[Path] = set()
        """Folders whose files `nested` looked for already."""

    def load(self) -> ProjectContext:
        if self._cached is None:
            self._cached = load_project_context(self.root, self.cwd, self.home)
        return self._cached

    def invalidate(self) -> None:
        self._cached = None
        self._scanned.clear()

    def nested(self, paths: Sequence[str]) -> str:
        """The context files of the folders `paths` are in, below the root and off the way
        to the starting folder, the first time an agent reads or edits a file there (as
        Claude Code loads a subfolder's CLAUDE.md); "" when there is none or nothing new."""
        context = self.load()
        parts: list[str] = []
        for folder in self._new_folders(paths):
            for candidate in folder_candidates(self.root, folder):
                resolved = _inside(self.root, candidate.path)
                if resolved is None or resolved in context.loaded:
                    continue
                context.loaded[resolved] = candidate.shown
                text = _expand(Importing(self.root, context.loaded), resolved, {resolved}, [], 0)
                parts.append(f"<!-- {candidate.shown}: the context file of a folder you are "
                             f"working in -->\n{text.strip()}")
        return "\n\n".join(parts)

    def _new_folders(self, paths: Sequence[str]) -> list[Path]:
        started = set(start_folders(self.root, self.cwd))
        found: list[Path] = []
        for path in paths:
            try:
                target = (self.root / path).resolve()
                parts = (target if target.is_dir() else target.parent).relative_to(
                    self.root).parts
            except (OSError, ValueError):  # outside the project, or through a link out of it
                continue
            for depth in range(1, len(parts) + 1):
                folder = self.root.joinpath(*parts[:depth])
                if folder not in started and folder not in self._scanned:
                    self._scanned.add(folder)
                    found.append(folder)
        return found


def load_project_context(root: Path, cwd: Path | None = None,
                         home: Path | None = None) -> ProjectContext:
    root = root.resolve()
    context = ProjectContext()
    loaded = context.loaded
    for candidate, _found in context_candidates(root, (home or Path.home()).resolve(), cwd):
        if candidate is None:
            continue
        within = candidate.within.resolve()
        resolved = _inside(within, candidate.path)
        if resolved is None or resolved in loaded:
            continue
        loaded[resolved] = candidate.shown
        imports: list[str] = []
        text = _expand(Importing(within, loaded), resolved, {resolved}, imports, 0)
        context.files.append(ContextFile(candidate.shown, text, tuple(imports)))
    return context


@dataclass(frozen=True)
class Importing:
    """Where imports may reach, and the files already in the context (shown once)."""

    within: Path
    loaded: dict[Path, str]


def _inside(root: Path, path: Path) -> Path | None:
    try:
        resolved = path.resolve()
        resolved.relative_to(root)
    except (OSError, ValueError):
        return None
    return resolved


def _expand(how: Importing, path: Path, seen: set[Path], imports: list[str],
            depth: int) -> str:
    try:
        text = read_regular_bytes(path, limit=MAX_IMPORT_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    if depth >= MAX_IMPORT_DEPTH:
        return text
    out: list[str] = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence or "@" not in line:
            out.append(line)
            continue
        out.append(_IMPORT.sub(
            lambda m: _import(how, path.parent, m, seen, imports, depth), line))
    return "".join(out)


def _import(how: Importing, base: Path, match: re.Match[str], seen: set[Path],
            imports: list[str], depth: int) -> str:
    # Relative to the importing file first, then to the root it may reach.
    within = how.within
    target = _inside(within, base / match.group(1))
    if target is None or not target.is_file():
        target = _inside(within, within / match.group(1))
    if target is None or not target.is_file() or target in seen:
        return match.group(0)
    shown = target.relative_to(within).as_posix()
    if target in how.loaded:  # already in the context: said once
        return f"{match.group(0)} (in the context above as {how.loaded[target]})"
    imports.append(shown)
    how.loaded[target] = shown
    body = _expand(how, target, seen | {target}, imports, depth + 1)
    return f"\n<!-- imported from {shown} -->\n{body.strip()}\n"
