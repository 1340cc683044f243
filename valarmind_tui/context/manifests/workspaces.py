"""What a workspace's members and a build backend's dynamic metadata hide from the root
manifest: the runtime dependencies of cargo, uv, pnpm and npm workspace members (not the
workspace's own crates and packages, which are the project), and the requirement files that
hatch's `requirements_txt` hook or setuptools' `dynamic` name.

Members are found by their globs at most two levels deep, 40 at most, each read with the safe
manifest read (facts.read_text).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from valarmind_tui.context.manifests.facts import Manifests, normalize, read_text
from valarmind_tui.context.manifests.python import split_requirement

MAX_MEMBERS = 40


def read_workspaces(root: Path, m: Manifests) -> None:
    own: set[str] = set()
    cargo = _toml(root / "Cargo.toml")
    pyproject = _toml(root / "pyproject.toml")
    _dynamic_requirements(root, pyproject, m)
    members = _strings(_get(cargo, "workspace", "members"))
    for folder in _members(root, members):
        data = _toml(folder / "Cargo.toml")
        own.add(str(_get(data, "package", "name") or ""))
        for name, spec in _table(data.get("dependencies")).items():
            if not _local(spec):
                m.add(name, spec.get("version", "") if isinstance(spec, dict) else spec)
    for folder in _members(root, _strings(_get(pyproject, "tool", "uv", "workspace", "members"))):
        data = _toml(folder / "pyproject.toml")
        own.add(str(_get(data, "project", "name") or ""))
        for req in _strings(_get(data, "project", "dependencies")):
            m.add(*split_requirement(req))
    for folder in _members(root, _node_globs(root)):
        data = _json(folder / "package.json")
        own.add(str(data.get("name") or ""))
        for name, version in _table(data.get("dependencies")).items():
            if not str(version).startswith(("workspace:", "file:", "link:")):
                m.add(name, version)
    for name in {normalize(n) for n in own if n}:
        for deps in (m.dependencies, m.dev_dependencies):
            for key in [k for k in deps if normalize(k) == name]:
                del deps[key]


def _dynamic_requirements(root: Path, pyproject: dict[str, Any], m: Manifests) -> None:
    """hatch-requirements-txt's `files`, setuptools' `dynamic.dependencies.file`."""
    hook = _get(pyproject, "tool", "hatch", "metadata", "hooks", "requirements_txt")
    files = _strings(_table(hook).get("files"))
    dynamic = _get(pyproject, "tool", "setuptools", "dynamic", "dependencies")
    files += _strings(_table(dynamic).get("file"))
    for rel in files[:8]:
        path = root / rel
        if ".." in Path(rel).parts or not path.is_file():
            continue
        for line in read_text(path, 100_000).splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "-")):
                m.add(*split_requirement(line))


def _members(root: Path, globs: list[str]) -> list[Path]:
    found: list[Path] = []
    for pattern in globs[:20]:
        if pattern.startswith(("/", "!")) or ".." in pattern or pattern.count("/") > 2:
            continue
        try:
            found += [p for p in sorted(root.glob(pattern.rstrip("/")))
                      if p.is_dir() and not p.is_symlink()]
        except (OSError, ValueError):
            continue
    return list(dict.fromkeys(found))[:MAX_MEMBERS]


def _node_globs(root: Path) -> list[str]:
    workspace = root / "pnpm-workspace.yaml"
    if workspace.is_file():
        import yaml  # here: only a pnpm workspace needs it, and every run imports this module

        try:
            data = yaml.safe_load(read_text(workspace, 50_000))
        except yaml.YAMLError:
            data = None
        return _strings(_table(data).get("packages"))
    workspaces = _json(root / "package.json").get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    return _strings(workspaces)


def _local(spec: Any) -> bool:
    return isinstance(spec, dict) and ("path" in spec or spec.get("workspace") is True)


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_text(path)) if path.is_file() else {}
    except tomllib.TOMLDecodeError:
        return {}


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_text(path)) if path.is_file() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
