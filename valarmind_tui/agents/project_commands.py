"""Detect a project's build, lint, type-check and test commands from its manifests.

QA runs exactly these (its `execute_allow`), the test agent runs the test ones, and /qa offers
them with no model configured.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Kind = Literal["build", "lint", "typecheck", "test"]
KINDS: tuple[Kind, ...] = ("build", "lint", "typecheck", "test")


@dataclass(frozen=True)
class ProjectCommand:
    """One command QA may run."""

    kind: Kind
    command: str
    source: str
    """The file it was detected from (pyproject.toml, package.json, Makefile...)."""


def detect_commands(root: Path) -> list[ProjectCommand]:
    """Every detected command, in build → lint → typecheck → test order, without duplicates."""
    found: list[ProjectCommand] = []
    for detector in (_python, _node, _makefile, _cargo, _go):
        found.extend(detector(root))
    seen: set[str] = set()
    unique = []
    for cmd in sorted(found, key=lambda c: KINDS.index(c.kind)):
        if cmd.command not in seen:
            seen.add(cmd.command)
            unique.append(cmd)
    return unique


def commands_of(commands: list[ProjectCommand], kind: Kind | None = None) -> tuple[str, ...]:
    return tuple(c.command for c in commands if kind is None or c.kind == kind)


def render_commands(commands: list[ProjectCommand]) -> str:
    """A markdown list for prompts and /qa."""
    if not commands:
        return "No build, lint, type-check or test commands were detected in this project."
    rows = [f"- {c.kind}: `{c.command}` (from {c.source})" for c in commands]
    return "The project's detected commands:\n" + "\n".join(rows)


def _tool(root: Path, name: str) -> str:
    """`.venv/bin/NAME` when the project has its own virtualenv with it, else NAME."""
    local = root / ".venv" / "bin" / name
    return f".venv/bin/{name}" if local.exists() else name


def _python(root: Path) -> list[ProjectCommand]:
    path = root / "pyproject.toml"
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
        return []
    tool = data.get("tool", {})
    deps = " ".join(_all_python_deps(data)).lower()
    out: list[ProjectCommand] = []
    src = "pyproject.toml"
    if "ruff" in tool or re.search(r"\bruff\b", deps):
        out.append(ProjectCommand("lint", f"{_tool(root, 'ruff')} check .", src))
    if "mypy" in tool or re.search(r"\bmypy\b", deps):
        out.append(ProjectCommand("typecheck", f"{_tool(root, 'mypy')} .", src))
    elif "pyright" in tool or re.search(r"\bpyright\b", deps):
        out.append(ProjectCommand("typecheck", f"{_tool(root, 'pyright')}", src))
    has_tests = (root / "tests").is_dir() or (root / "test").is_dir()
    if "pytest" in tool or re.search(r"\bpytest\b", deps) or has_tests:
        out.append(ProjectCommand("test", f"{_tool(root, 'pytest')} -q", src))
    return out


def _all_python_deps(data: dict[str, Any]) -> list[str]:
    project = data.get("project", {})
    deps = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        deps.extend(extra)
    for group in data.get("dependency-groups", {}).values():
        deps.extend(d for d in group if isinstance(d, str))
    poetry = data.get("tool", {}).get("poetry", {})
    deps.extend(poetry.get("dev-dependencies", {}))
    for group in poetry.get("group", {}).values():
        deps.extend(group.get("dependencies", {}))
    return [str(d) for d in deps]


_NODE_SCRIPTS: dict[Kind, tuple[str, ...]] = {
    "build": ("build",),
    "lint": ("lint",),
    "typecheck": ("typecheck", "type-check", "tsc", "check-types", "types"),
    "test": ("test",),
}


def _node(root: Path) -> list[ProjectCommand]:
    path = root / "package.json"
    if not path.is_file():
        return []
    try:
        scripts = json.loads(path.read_text(encoding="utf-8")).get("scripts", {}) or {}
    except (ValueError, OSError, AttributeError):
        return []
    runner = "npm run"
    if (root / "pnpm-lock.yaml").exists():
        runner = "pnpm run"
    elif (root / "yarn.lock").exists():
        runner = "yarn run"
    elif (root / "bun.lockb").exists() or (root / "bun.lock").exists():
        runner = "bun run"
    out = []
    for kind, names in _NODE_SCRIPTS.items():
        for name in names:
            if name in scripts:
                out.append(ProjectCommand(kind, f"{runner} {name}", "package.json"))
                break
    return out


_MAKE_TARGETS: dict[Kind, tuple[str, ...]] = {
    "build": ("build", "all"),
    "lint": ("lint",),
    "typecheck": ("typecheck", "type-check", "types", "mypy"),
    "test": ("test", "tests", "check"),
}
_TARGET = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", re.MULTILINE)


def _makefile(root: Path) -> list[ProjectCommand]:
    for name in ("Makefile", "makefile", "GNUmakefile"):
        path = root / name
        if path.is_file():
            break
    else:
        return []
    try:
        targets = set(_TARGET.findall(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return []
    out = []
    for kind, names in _MAKE_TARGETS.items():
        for target in names:
            if target in targets:
                out.append(ProjectCommand(kind, f"make {target}", name))
                break
    return out


def _cargo(root: Path) -> list[ProjectCommand]:
    if not (root / "Cargo.toml").is_file():
        return []
    src = "Cargo.toml"
    return [
        ProjectCommand("build", "cargo build", src),
        ProjectCommand("lint", "cargo clippy", src),
        ProjectCommand("test", "cargo test", src),
    ]


def _go(root: Path) -> list[ProjectCommand]:
    if not (root / "go.mod").is_file():
        return []
    src = "go.mod"
    return [
        ProjectCommand("build", "go build ./...", src),
        ProjectCommand("lint", "go vet ./...", src),
        ProjectCommand("test", "go test ./...", src),
    ]
