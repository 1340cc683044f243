"""Where context files are: the person's own, then the project's from its root down to the
folder ValarMind was started in (context/project_context.py reads and joins them).

The project root is the git root above the starting folder (a run started in `src/` works on
the whole repository), never above the home folder unless started there. In each folder, in
this order: VALARMIND.md, `.valarmind/local.md`, AGENTS.md (or AGENTS.override.md, which
replaces it, as in Codex), CLAUDE.md, `.claude/CLAUDE.md`, CLAUDE.local.md, GEMINI.md. The
person's: `~/.config/valarmind/VALARMIND.md`, `~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`,
`~/.gemini/GEMINI.md`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from valarmind_tui.core.safe_files import read_regular_bytes
from valarmind_tui.settings.trust.decision import remembered
from valarmind_tui.setup.report import Found, Kind, Scope

FOLDER_FILES: tuple[tuple[str, str], ...] = (
    ("VALARMIND.md", "valarmind"), (".valarmind/local.md", "valarmind"),
    ("AGENTS.override.md", "codex"), ("AGENTS.md", "agents"), ("CLAUDE.md", "claude"),
    (".claude/CLAUDE.md", "claude"), ("CLAUDE.local.md", "claude"), ("GEMINI.md", "gemini"),
)
USER_FILES: tuple[tuple[str, str], ...] = (
    (".config/valarmind/VALARMIND.md", "valarmind"), (".claude/CLAUDE.md", "claude"),
    (".codex/AGENTS.override.md", "codex"), (".codex/AGENTS.md", "codex"),
    (".gemini/GEMINI.md", "gemini"),
)
MAX_BYTES = 200_000
"""What is read of one file (as context/project_context.py reads it)."""
OVERRIDES = {"AGENTS.md": "AGENTS.override.md", ".codex/AGENTS.md": ".codex/AGENTS.override.md"}


@dataclass(frozen=True)
class ContextCandidate:
    """A context file that exists, where imports from it may reach (`within`), and its name
    as shown (`~/.claude/CLAUDE.md`, `src/AGENTS.md`)."""

    path: Path
    shown: str
    scope: Scope
    tool: str
    within: Path


def project_root_for(start: Path, home: Path | None = None,
                     decided: Callable[[Path], bool] | None = None) -> Path:
    """The git root above `start` (a `.git` folder or file), or `start` when there is none.
    A folder on the way that the person trusted or declined (`decided`; by default their
    `trusted_projects` / `untrusted_projects`) is a project of its own: a monorepo's
    `service/` trusted alone stays the root. The walk stops below the home folder: a dotfiles
    repository in ~ does not make the whole home one project."""
    start = start.resolve()
    home = (home or Path.home()).resolve()
    decided = decided or (lambda folder: remembered(folder) is not None)
    for folder in (start, *start.parents):
        if folder == home and start != home:
            break
        if (folder / ".git").exists():
            return folder
        if decided(folder):
            return folder
    return start


def context_candidates(project_root: Path, home: Path,
                       cwd: Path | None = None) -> list[tuple[ContextCandidate | None, Found]]:
    """Every context file present, the person's first, then from the root down to `cwd`; a
    file replaced by an override is reported with no candidate."""
    root = project_root.resolve()
    found: list[tuple[ContextCandidate | None, Found]] = []
    found += _in_folder(home, USER_FILES, Scope.USER, home, "~/")
    for folder in _folders(root, cwd):
        prefix = "" if folder == root else folder.relative_to(root).as_posix() + "/"
        found += _in_folder(folder, FOLDER_FILES, Scope.PROJECT, root, prefix)
    return _once(found)


def _once(
    found: list[tuple[ContextCandidate | None, Found]],
) -> list[tuple[ContextCandidate | None, Found]]:
    """Each file once, by resolved path and by content (a CLAUDE.md linked to AGENTS.md, or a
    copy of it, is read once)."""
    paths: dict[Path, str] = {}
    texts: dict[bytes, str] = {}
    out: list[tuple[ContextCandidate | None, Found]] = []
    for candidate, row in found:
        if candidate is None:
            out.append((candidate, row))
            continue
        try:
            resolved = candidate.path.resolve()
            digest = hashlib.sha256(read_regular_bytes(resolved, limit=MAX_BYTES)).digest()
        except OSError as exc:
            out.append((None, replace(row, loaded=False, reason=f"cannot be read ({exc})")))
            continue
        same = paths.get(resolved) or texts.get(digest)
        if same is not None:
            what = "the same file" if resolved in paths else "the same text"
            out.append((None, replace(row, loaded=False, reason=f"{what} as {same}, read once")))
            continue
        paths[resolved], texts[digest] = candidate.shown, candidate.shown
        out.append((candidate, row))
    return out


def folder_candidates(root: Path, folder: Path) -> list[ContextCandidate]:
    """The context files of one folder below the root (an agent reads or edits a file in it)."""
    prefix = folder.relative_to(root).as_posix() + "/"
    return [c for c, _ in _in_folder(folder, FOLDER_FILES, Scope.PROJECT, root, prefix)
            if c is not None]


def start_folders(root: Path, cwd: Path | None) -> list[Path]:
    """The folders whose files load at the start: the root down to `cwd`."""
    return _folders(root, cwd)


def _folders(root: Path, cwd: Path | None) -> list[Path]:
    if cwd is None:
        return [root]
    try:
        parts = cwd.resolve().relative_to(root).parts
    except ValueError:
        return [root]
    return [root, *(root.joinpath(*parts[: i + 1]) for i in range(len(parts)))]


def _in_folder(folder: Path, names: tuple[tuple[str, str], ...], scope: Scope, within: Path,
               prefix: str) -> list[tuple[ContextCandidate | None, Found]]:
    out: list[tuple[ContextCandidate | None, Found]] = []
    for name, tool in names:
        path = folder / name
        if not path.is_file():
            continue
        shown = prefix + name
        override = OVERRIDES.get(name)
        if override is not None and (folder / override).is_file():
            out.append((None, Found(Kind.CONTEXT_FILE, shown, path, scope, tool, False,
                                    f"{prefix}{override} replaces it")))
            continue
        out.append((ContextCandidate(path, shown, scope, tool, within),
                    Found(Kind.CONTEXT_FILE, shown, path, scope, tool, True)))
    return out


def scan_context_files(project_root: Path, home: Path, trusted: bool,
                       cwd: Path | None = None) -> list[Found]:
    """The context files present. They load in any folder, trusted or not: they are text the
    model reads, as it reads any file of the project, never configuration."""
    return [found for _, found in context_candidates(project_root, home, cwd)]
