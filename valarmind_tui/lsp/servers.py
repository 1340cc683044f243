"""The language servers ValarMind knows, the languages they serve, and where one is found.

A server is found on PATH or in the project's own environment (`.venv/bin`, `venv/bin`,
`node_modules/.bin`). The project's environment is the repository's files: its binaries are
used only in a trusted project, and every server runs in the sandbox anyway. Which program runs
is never named by a repository: the user's config may pick among these servers for a language
and give a server's command (`[lsp]`, settings/lsp.py), a repository's may not.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerSpec:
    """One known language server."""

    name: str
    """What config and /lsp call it."""
    command: tuple[str, ...]
    """The program and its arguments for stdio."""
    language: str
    """The language it serves (a key of LANGUAGES)."""


LANGUAGES: dict[str, tuple[str, ...]] = {
    "python": (".py", ".pyi"),
    "typescript": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
    "go": (".go",),
    "rust": (".rs",),
    "c": (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
}
"""Each language's file extensions."""
LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python", ".ts": "typescript", ".mts": "typescript",
    ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact", ".go": "go",
    ".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp",
    ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
}
"""LSP's languageId of a file by its extension."""
KNOWN: tuple[ServerSpec, ...] = (
    ServerSpec("basedpyright", ("basedpyright-langserver", "--stdio"), "python"),
    ServerSpec("pyright", ("pyright-langserver", "--stdio"), "python"),
    ServerSpec("ruff", ("ruff", "server"), "python"),
    ServerSpec("typescript-language-server", ("typescript-language-server", "--stdio"),
               "typescript"),
    ServerSpec("gopls", ("gopls", "serve"), "go"),
    ServerSpec("rust-analyzer", ("rust-analyzer",), "rust"),
    ServerSpec("clangd", ("clangd", "--background-index=false"), "c"),
)
"""In order of preference within a language: the first found serves it (a type checker
before a linter)."""
PROJECT_BIN_DIRS = (".venv/bin", "venv/bin", "node_modules/.bin")


def language_of(path: Path | str) -> str | None:
    suffix = Path(path).suffix.lower()
    return next((lang for lang, exts in LANGUAGES.items() if suffix in exts), None)


def candidates(language: str, preferred: Mapping[str, Sequence[str]]) -> list[ServerSpec]:
    """The known servers for `language`, in the user's order when their config gives one."""
    own = [s for s in KNOWN if s.language == language]
    names = preferred.get(language)
    if not names:
        return own
    by_name = {s.name: s for s in own}
    return [by_name[n] for n in names if n in by_name]


@dataclass(frozen=True)
class Found:
    """A server found: the argv to run and where the program was found."""

    spec: ServerSpec
    argv: tuple[str, ...]
    source: str
    """"PATH", "project" (its environment) or "config" (the user's command)."""


def find_server(spec: ServerSpec, root: Path, *, trusted: bool,
                commands: Mapping[str, Sequence[str]], path: str | None = None) -> Found | None:
    """Where `spec`'s program is: the user's command for it, the project's environment (when
    trusted), then PATH; None when nowhere."""
    own = commands.get(spec.name)
    if own:
        program = shutil.which(own[0], path=path)
        return Found(spec, (program, *own[1:]), "config") if program else None
    program = spec.command[0]
    if trusted:
        for folder in PROJECT_BIN_DIRS:
            candidate = root / folder / program
            if _runnable_inside(candidate, root):
                return Found(spec, (str(candidate), *spec.command[1:]), "project")
    found = shutil.which(program, path=path if path is not None else os.environ.get("PATH"))
    return Found(spec, (found, *spec.command[1:]), "PATH") if found else None


def _runnable_inside(candidate: Path, root: Path) -> bool:
    """An executable file whose real path stays in the project (a link out of it is the
    repository choosing a program elsewhere on the machine)."""
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return real.is_relative_to(root.resolve()) and real.is_file() and os.access(real, os.X_OK)
