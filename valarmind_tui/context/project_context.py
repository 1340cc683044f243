"""Project context: VALARMIND.md, `.valarmind/local.md` (personal, git-ignored), and the
AGENTS.md / CLAUDE.md files people already have, with `@path` imports resolved.

An import is a line-leading or space-preceded `@relative/path` naming a file inside the project
(symlinks resolved, then checked against the root); imports nest up to 5 deep, a cycle or a
missing file is skipped, and text inside code fences is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

CONTEXT_FILES = ("VALARMIND.md", ".valarmind/local.md", "AGENTS.md", "CLAUDE.md")
MAX_IMPORT_DEPTH = 5
MAX_IMPORT_BYTES = 200_000
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:\./|\.\./)?[\w./-]+\.[\w]+)", re.MULTILINE)
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class ContextFile:
    """One loaded context file, imports expanded."""

    path: str
    """Relative to the project root."""
    text: str
    imports: tuple[str, ...] = ()


@dataclass
class ProjectContext:
    """All project context files, in priority order."""

    files: list[ContextFile] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(f"<!-- {f.path} -->\n{f.text.strip()}" for f in self.files)

    def __bool__(self) -> bool:
        return bool(self.files)


class ContextLoader:
    """Loads and caches the project context; call `invalidate()` after writing VALARMIND.md."""

    def __init__(self, project_root: Path) -> None:
        self.root = project_root.resolve()
        self._cached: ProjectContext | None = None

    def load(self) -> ProjectContext:
        if self._cached is None:
            self._cached = load_project_context(self.root)
        return self._cached

    def invalidate(self) -> None:
        self._cached = None


def load_project_context(root: Path) -> ProjectContext:
    root = root.resolve()
    context = ProjectContext()
    for name in CONTEXT_FILES:
        path = root / name
        if not path.is_file():
            continue
        resolved = _inside(root, path)
        if resolved is None:
            continue
        imports: list[str] = []
        text = _expand(root, resolved, {resolved}, imports, 0)
        context.files.append(ContextFile(name, text, tuple(imports)))
    return context


def _inside(root: Path, path: Path) -> Path | None:
    try:
        resolved = path.resolve()
        resolved.relative_to(root)
    except (OSError, ValueError):
        return None
    return resolved


def _expand(root: Path, path: Path, seen: set[Path], imports: list[str], depth: int) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:MAX_IMPORT_BYTES]
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
            lambda m: _import(root, path.parent, m, seen, imports, depth), line))
    return "".join(out)


def _import(root: Path, base: Path, match: re.Match[str], seen: set[Path], imports: list[str],
            depth: int) -> str:
    # Relative to the importing file first, then to the project root.
    target = _inside(root, base / match.group(1))
    if target is None or not target.is_file():
        target = _inside(root, root / match.group(1))
    if target is None or not target.is_file() or target in seen:
        return match.group(0)
    imports.append(target.relative_to(root).as_posix())
    body = _expand(root, target, seen | {target}, imports, depth + 1)
    return f"\n<!-- imported from {imports[-1]} -->\n{body.strip()}\n"
