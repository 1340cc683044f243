"""What a project's manifests say (`Manifests`, filled by the readers in `python.py` and
`langs.py`), and the one way to read a repository's manifest file (`read_text`: a regular file
inside its own folder, size-capped).

Python (pyproject.toml, setup.cfg, setup.py, PKG-INFO, requirements*.txt, all read side by side),
Node (package.json), Go (go.mod), Rust (Cargo.toml), Java (pom.xml, Gradle), Ruby (*.gemspec,
Gemfile), PHP (composer.json) and .NET (*.sln, *.csproj).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from valarmind_tui.core.safe_files import read_regular_text

MAX_MANIFEST_CHARS = 500_000


@dataclass
class Manifests:
    """What the manifests say; `found` maps each manifest read to a few facts about it."""

    name: str | None = None
    description: str = ""
    dependencies: dict[str, str] = field(default_factory=dict)
    dev_dependencies: dict[str, str] = field(default_factory=dict)
    found: dict[str, dict[str, Any]] = field(default_factory=dict)
    ecosystems: list[str] = field(default_factory=list)
    scripts: dict[str, str] = field(default_factory=dict)
    """package.json / composer.json scripts: name -> what it runs."""
    tools: set[str] = field(default_factory=set)
    """Tools configured in the manifests (pytest, ruff, mypy, flake8...)."""
    runtime: dict[str, str] = field(default_factory=dict)
    """Language versions: {"Python": ">=3.8", "Go": "1.22"...}."""

    def named(self, name: Any) -> None:
        """Take `name` unless a manifest read earlier already named the project."""
        if not self.name and isinstance(name, str) and name.strip() and "${" not in name:
            self.name = name.strip()

    def describe(self, text: Any) -> None:
        if not self.description and isinstance(text, str) and text.strip():
            self.description = " ".join(text.split())[:400]

    def add(self, name: str, version: Any = "", *, dev: bool = False) -> None:
        """Record a dependency once (names compared case- and separator-insensitively); a
        runtime dependency seen later leaves the dev list."""
        name = name.strip()
        if not name:
            return
        key = normalize(name)
        if any(normalize(n) == key for n in self.dependencies):
            return
        target = self.dev_dependencies if dev else self.dependencies
        if dev and any(normalize(n) == key for n in target):
            return
        if not dev:
            for n in [n for n in self.dev_dependencies if normalize(n) == key]:
                del self.dev_dependencies[n]
        target[name] = str(version or "").strip()

    def ecosystem(self, name: str) -> None:
        if name not in self.ecosystems:
            self.ecosystems.append(name)

    def all_dependencies(self) -> set[str]:
        return {normalize(n) for n in (*self.dependencies, *self.dev_dependencies)}


def normalize(name: str) -> str:
    """PEP 503-style: `Charset_Normalizer` and `charset-normalizer` are one package."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_text(path: Path, limit: int = MAX_MANIFEST_CHARS) -> str:
    """A regular file's text; '' when missing, unreadable, or a symlink leading out of its own
    folder (a repository's `setup.py -> ~/.ssh/id_rsa` must not reach the model)."""
    try:
        if not path.resolve().is_relative_to(path.parent.resolve()):
            return ""
        return read_regular_text(path, errors="replace")[:limit]
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        return ""
