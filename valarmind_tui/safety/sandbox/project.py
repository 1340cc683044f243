"""What of the project stays read-only inside the sandbox: whatever configures a program that
runs outside it later (the next session, `valarmind commit`, `review`, the person's git).

That is the repository configuration ValarMind and the other agents' tools read
(`REPOSITORY_CONFIG`), and every entry of the git dir except what git writes for ordinary work
(`GIT_WRITABLE`: objects, refs, the index, HEAD and the state of a merge or rebase, their lock
files). The git dir itself stays writable (git creates `index.lock` beside the index and renames
it) and is bound onto itself, so it cannot be renamed away and replaced either.

A path that does not exist yet cannot be bound read-only without a mount point, and bubblewrap
creates that mount point through the read-write project bind, in the real folder. A missing
name therefore becomes an empty read-only directory for the command (git and `git add -A`
ignore empty directories; a file there would break `git add -A`), removed again afterwards by
`ProjectGuard`. Some names cannot have a placeholder: `commondir`, `config.worktree` and
`gitdir` in a git dir (git would read it and fail), and `plugins` (a package to setuptools).
`ProjectGuard` is the backstop for them and for symbolic links (a mount follows a link, so the
link itself could be replaced): it notes each protected path before the command and, after it,
removes what the command created and puts back a link it changed, and says so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

REPOSITORY_CONFIG = (".valarmind", ".mcp.json", "external-agents.json", "plugins", ".envrc",
                     ".claude", ".codex", ".gemini", ".opencode", "opencode.json", ".agents")
"""Read at the project root by ValarMind (and the agents' tools whose setup it reads)."""
NO_PLACEHOLDER = frozenset({"plugins"})
"""Missing names left to ProjectGuard alone: an empty `plugins/` folder is a package to
setuptools' flat-layout discovery, which then refuses `pip install -e .`."""
GIT_WRITABLE = frozenset({
    "objects", "refs", "logs", "index", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD",
    "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "MERGE_AUTOSTASH", "AUTO_MERGE", "COMMIT_EDITMSG",
    "TAG_EDITMSG", "SQUASH_MSG", "EDIT_DESCRIPTION", "packed-refs", "rebase-merge",
    "rebase-apply", "sequencer", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "BISECT_LOG",
    "BISECT_START", "BISECT_TERMS", "BISECT_NAMES", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK",
    "BISECT_RUN", "BISECT_HEAD", "NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF", "NOTES_MERGE_WORKTREE",
    "rr-cache", "lfs", "shallow", "gc.pid", "gc.log",
})
"""What git writes in its git dir for ordinary work (add, commit, branch, stash, merge, rebase,
cherry-pick, bisect, fetch, gc); names ending `.lock` and `sharedindex.*` too."""
GIT_PLACEHOLDER_DIRS = ("hooks", "info", "modules", "worktrees", "remotes", "branches")
"""Folders of the git dir that hold what git runs or obeys; an empty read-only one when absent."""
GIT_WATCHED_FILES = ("config", "config.worktree", "commondir", "gitdir")
"""Files of the git dir that point git at other config or another git dir: read-only when
present; when absent, removed after the command if it created them (a placeholder would make
git fail)."""


@dataclass
class ProjectPlan:
    """The bubblewrap arguments that make the project's protected paths read-only."""

    args: list[str] = field(default_factory=list)
    watched: list[Path] = field(default_factory=list)
    """Protected paths ProjectGuard checks after the command."""


def project_plan(root: Path) -> ProjectPlan:
    """The arguments to add after the read-write bind of `root`."""
    plan = ProjectPlan()
    for name in REPOSITORY_CONFIG:
        _read_only(plan, root / name, placeholder=name not in NO_PLACEHOLDER)
    dot_git = root / ".git"
    if dot_git.is_symlink() or dot_git.is_file():
        _read_only(plan, dot_git, placeholder=False)
    elif not dot_git.exists():
        _read_only(plan, dot_git, placeholder=True)
    for git_dir in git_dirs(root):
        _protect_git_dir(plan, git_dir)
    return plan


def git_dirs(root: Path) -> list[Path]:
    """The project's git dir and common dir, parents first: `.git`, or the folder a `.git` file
    names (a linked worktree's, a submodule's) and the common dir its `commondir` names. One
    outside the project is bound too (it is read-only otherwise, and git work in a worktree
    writes there), but only if it is a git dir (HEAD, and objects or commondir)."""
    dot_git = root / ".git"
    found: list[Path] = []
    if dot_git.is_dir() and not dot_git.is_symlink():
        found.append(dot_git)
    elif dot_git.is_dir():  # a link to the git dir: the link is watched, its target bound
        found.append(dot_git.resolve())
    elif dot_git.is_file() and not dot_git.is_symlink():
        pointed = _read_pointer(dot_git, "gitdir:")
        if pointed is not None:
            found.append((root / pointed).resolve())
    for git_dir in list(found):
        common = _read_pointer(git_dir / "commondir", "")
        if common is not None:
            found.append((git_dir / common).resolve())
    real = [d for d in dict.fromkeys(found) if d == dot_git or _is_git_dir(d)]
    return sorted(real, key=lambda d: len(d.parts))


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and ((path / "objects").is_dir()
                                          or (path / "commondir").is_file())


def _read_pointer(path: Path, prefix: str) -> str | None:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return None
    if not text.startswith(prefix):
        return None
    return text[len(prefix):].strip() or None


def _protect_git_dir(plan: ProjectPlan, git_dir: Path) -> None:
    plan.args += ["--bind", str(git_dir), str(git_dir)]
    present = set()
    try:
        entries = sorted(git_dir.iterdir())
    except OSError:
        entries = []
    for entry in entries:
        present.add(entry.name)
        if not _git_writable(entry.name):
            _read_only(plan, entry, placeholder=False)
    for name in GIT_PLACEHOLDER_DIRS:
        if name not in present:
            _read_only(plan, git_dir / name, placeholder=True)
    for name in GIT_WATCHED_FILES:
        if name not in present:
            plan.watched.append(git_dir / name)


def _git_writable(name: str) -> bool:
    return name in GIT_WRITABLE or name.endswith(".lock") or name.startswith("sharedindex.")


def _read_only(plan: ProjectPlan, path: Path, *, placeholder: bool) -> None:
    """Bind an existing path read-only; give a missing one an empty read-only directory when
    `placeholder`; watch a symbolic link (a mount would follow it) and every missing path."""
    raw = str(path)
    if path.is_symlink():
        plan.watched.append(path)
    elif path.exists():
        plan.args += ["--ro-bind", raw, raw]
        plan.watched.append(path)
    else:
        if placeholder:
            plan.args += ["--tmpfs", raw, "--remount-ro", raw]
        plan.watched.append(path)


Stamp = tuple[str, str] | None
"""What a protected path was: None (absent), ("link", target), ("dir", "empty"), ("dir", "")
or ("file", "")."""


EMPTY: Stamp = ("dir", "empty")


def stamp(path: Path) -> Stamp:
    try:
        if path.is_symlink():
            return ("link", os.readlink(path))
        if path.is_dir():
            return ("dir", "empty" if _empty_dir(path) else "")
        if path.exists():
            return ("file", "")
    except OSError:
        return None
    return None


class ProjectGuard:
    """Notes the protected paths before a sandboxed command and, after it, takes away the
    placeholders and undoes what the command created or relinked (`undone` says what)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.before = {path: stamp(path) for path in project_plan(root).watched}
        self.undone: list[str] = []

    def __enter__(self) -> ProjectGuard:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.finish()

    def finish(self) -> list[str]:
        """Undo, once; the project-relative paths that were undone."""
        for path, was in self.before.items():
            now = stamp(path)
            if now == was or (was == EMPTY and now is None):
                continue
            if was is None and now == EMPTY:
                with contextlib.suppress(OSError):
                    path.rmdir()  # our placeholder
                continue
            if was is not None and was != EMPTY and was[0] != "link":
                continue  # bound read-only: only a writer outside the sandbox can change it
            # Created, relinked, or filled: an empty folder may be another command's
            # placeholder, whose removal took this command's read-only mount away with it.
            _remove(path)
            if was is not None and was[0] == "link":
                with contextlib.suppress(OSError):
                    path.symlink_to(was[1])
            inside = path.is_relative_to(self.root)
            self.undone.append(path.relative_to(self.root).as_posix() if inside else str(path))
        self.before = {}
        return self.undone

    def report(self) -> str:
        """A line for the command's output, empty when nothing was undone."""
        if not self.undone:
            return ""
        return ("[the sandbox undid what the command wrote to " + ", ".join(self.undone) +
                ": commands may not write configuration that runs outside the sandbox; "
                "ask the person to make that change]")


def _empty_dir(path: Path) -> bool:
    try:
        return not any(path.iterdir())
    except OSError:
        return False


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


class NoGuard:
    """The guard of an inactive sandbox: nothing to undo."""

    def __enter__(self) -> NoGuard:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def report(self) -> str:
        return ""
