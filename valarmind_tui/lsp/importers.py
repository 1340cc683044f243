"""The project files that import an edited file, found by their import lines: opened in the
server with the edit, so a caller the change breaks is checked even when the agent never read
it. Python and TypeScript/JavaScript; a plain text scan, bounded in files and bytes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from valarmind_tui.lsp.servers import LANGUAGES, language_of

SKIPPED_DIRS = frozenset({
    ".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
    ".ruff_cache", ".pytest_cache", "build", "dist", "target", ".next", "coverage",
})
MAX_FILES = 5000
MAX_FILE_BYTES = 256 * 1024
MAX_IMPORTERS = 8


def import_pattern(edited: Path) -> re.Pattern[str] | None:
    """What an import of `edited` looks like in a file of its language; None for the
    languages without one here."""
    language = language_of(edited)
    name = edited.parent.name if edited.stem == "__init__" else edited.stem
    if not name.isidentifier() and language == "python":
        return None
    word = re.escape(name)
    if language == "python":
        return re.compile(rf"^\s*(?:from\s+[\w.]*\b{word}\b[\w.]*\s+import|import\s+[\w.,\s]*"
                          rf"\b{word}\b)", re.M)
    if language == "typescript":
        stem = re.escape(edited.stem if edited.stem != "index" else edited.parent.name)
        return re.compile(rf"""(?:from|require\(|import\()\s*['"][^'"]*\b{stem}(?:\.\w+)?['"]""")
    return None


def importers(root: Path, edited: Path, *, limit: int = MAX_IMPORTERS) -> list[Path]:
    """Up to `limit` files of the edited file's language under `root` whose import lines name
    it (the edited file itself left out)."""
    pattern = import_pattern(edited)
    language = language_of(edited)
    if pattern is None or language is None:
        return []
    suffixes = LANGUAGES[language]
    found: list[Path] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(suffixes):
                continue
            seen += 1
            if seen > MAX_FILES:
                return found
            path = Path(folder, name)
            if path == edited or path.is_symlink():
                continue
            try:
                with path.open("rb") as handle:
                    text = handle.read(MAX_FILE_BYTES).decode("utf-8", errors="replace")
            except OSError:
                continue
            if pattern.search(text):
                found.append(path)
                if len(found) >= limit:
                    return found
    return found
