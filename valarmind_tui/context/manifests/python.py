"""Python metadata, every file side by side: pyproject.toml, setup.cfg, setup.py (parsed with
`ast`, never run), PKG-INFO (an sdist's) and requirements*.txt. An sdist like requests keeps its
name and dependencies in setup.py/setup.cfg/PKG-INFO while pyproject.toml only configures tools.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

from valarmind_tui.context.manifests.facts import Manifests, read_text

_REQ = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*(?:\[[^\]]*\])?\s*(.*)")
_DEV_REQUIREMENTS = re.compile(r"dev|test|lint|doc|ci|type", re.I)


def split_requirement(req: str) -> tuple[str, str]:
    """`charset_normalizer>=2,<4; python_version>"3"` -> ("charset_normalizer", ">=2,<4")."""
    m = _REQ.match(req)
    if not m:
        return "", ""
    version = m.group(2).split(";")[0].strip().strip("()").replace(" ", "")
    return m.group(1), version


def read_python(root: Path, m: Manifests) -> None:
    readers = (("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg),
               ("setup.py", _setup_py), ("PKG-INFO", _pkg_info))
    for name, reader in readers:
        if (root / name).is_file():
            m.ecosystem("python")
            m.found[name] = {}
            reader(read_text(root / name), m, m.found[name])
    for path in _requirement_files(root):
        m.ecosystem("python")
        rel = path.relative_to(root).as_posix()
        m.found[rel] = {}
        dev = bool(_DEV_REQUIREMENTS.search(path.stem.replace("requirements", "")))
        for line in read_text(path, 100_000).splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "-")):
                continue
            name, version = split_requirement(line)
            if name:
                m.add(name, version, dev=dev)
    for config, tool in (("pytest.ini", "pytest"), ("tox.ini", "tox"), (".flake8", "flake8"),
                         ("ruff.toml", "ruff"), (".ruff.toml", "ruff"), ("mypy.ini", "mypy")):
        if (root / config).is_file():
            m.tools.add(tool)
    if "tox" in m.tools and re.search(r"(?m)^\[pytest\]", read_text(root / "tox.ini", 50_000)):
        m.tools.add("pytest")


def _requirement_files(root: Path) -> list[Path]:
    found = sorted(p for p in root.glob("requirements*.txt") if p.is_file())
    folder = root / "requirements"
    if folder.is_dir():
        found += sorted(p for p in folder.glob("*.txt") if p.is_file())
    return found[:12]


def _pyproject(text: str, m: Manifests, facts: dict[str, Any]) -> None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        facts["error"] = str(exc)
        return
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry", {}) if isinstance(tool.get("poetry"), dict) else {}
    m.named(project.get("name") or poetry.get("name"))
    m.describe(project.get("description") or poetry.get("description"))
    m.tools.update(str(k) for k in tool)
    facts["tools"] = sorted(str(k) for k in tool)
    if project.get("requires-python"):
        m.runtime.setdefault("Python", str(project["requires-python"]))
    facts["scripts"] = dict(project.get("scripts", {}) or {})
    for req in _strings(project.get("dependencies")):
        m.add(*split_requirement(req))
    for group in (project.get("optional-dependencies") or {}).values():
        for req in _strings(group):
            m.add(*split_requirement(req), dev=True)
    for group in (data.get("dependency-groups") or {}).values():
        for req in _strings(group):
            m.add(*split_requirement(req), dev=True)
    for name, version in (poetry.get("dependencies") or {}).items():
        if name == "python":
            m.runtime.setdefault("Python", _poetry_version(version))
        else:
            m.add(name, _poetry_version(version))
    dev_groups = [poetry.get("dev-dependencies") or {}]
    dev_groups += [g.get("dependencies") or {} for g in (poetry.get("group") or {}).values()
                   if isinstance(g, dict)]
    for group in dev_groups:
        for name, version in group.items():
            m.add(name, _poetry_version(version), dev=True)


def _setup_cfg(text: str, m: Manifests, facts: dict[str, Any]) -> None:
    import configparser  # only a project with a setup.cfg

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        facts["error"] = str(exc).splitlines()[0]
        return
    meta = parser["metadata"] if parser.has_section("metadata") else {}
    m.named(meta.get("name"))
    m.describe(meta.get("description") or meta.get("summary"))
    options = parser["options"] if parser.has_section("options") else {}
    if options.get("python_requires"):
        m.runtime.setdefault("Python", options["python_requires"].strip())
    for key in ("install_requires",):
        for req in _lines(options.get(key, "")):
            m.add(*split_requirement(req))
    for req in _lines(meta.get("requires-dist", "") or meta.get("requires_dist", "")):
        m.add(*split_requirement(req))
    for section in ("options.extras_require", "options.tests_require"):
        if parser.has_section(section):
            for value in parser[section].values():
                for req in _lines(value):
                    m.add(*split_requirement(req), dev=True)
    for req in _lines(options.get("tests_require", "")):
        m.add(*split_requirement(req), dev=True)
    for section in parser.sections():
        tool = section.removeprefix("tool:")
        if tool in ("pytest", "flake8", "mypy", "isort", "coverage:run"):
            m.tools.add(tool.split(":")[0])


def _setup_py(text: str, m: Manifests, facts: dict[str, Any]) -> None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        facts["error"] = str(exc)
        return
    names: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", getattr(n.func, "attr", None)) == "setup"), None)
    if call is None:
        return
    kwargs = {k.arg: _resolve(k.value, names) for k in call.keywords if k.arg}
    m.named(_literal(kwargs.get("name")))
    m.describe(_literal(kwargs.get("description")))
    python = _literal(kwargs.get("python_requires"))
    if isinstance(python, str):
        m.runtime.setdefault("Python", python)
    for req in _strings(_literal(kwargs.get("install_requires"))):
        m.add(*split_requirement(req))
    for req in _strings(_literal(kwargs.get("tests_require"))):
        m.add(*split_requirement(req), dev=True)
    extras = _literal(kwargs.get("extras_require"))
    for group in (extras.values() if isinstance(extras, dict) else ()):
        for req in _strings(group):
            m.add(*split_requirement(req), dev=True)


def _pkg_info(text: str, m: Manifests, facts: dict[str, Any]) -> None:
    from email.parser import HeaderParser  # here: only an sdist's PKG-INFO is read with it

    headers = HeaderParser().parsestr(text.split("\n\n", 1)[0] + "\n")
    m.named(headers.get("Name"))
    m.describe(headers.get("Summary"))
    if headers.get("Requires-Python"):
        m.runtime.setdefault("Python", str(headers["Requires-Python"]))
    facts["version"] = headers.get("Version")
    for req in headers.get_all("Requires-Dist") or []:
        m.add(*split_requirement(req), dev="extra ==" in req.replace("extra==", "extra =="))


def _resolve(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    return names.get(node.id, node) if isinstance(node, ast.Name) else node


def _literal(node: ast.expr | None) -> Any:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return _lines(value)
    return [v for v in value if isinstance(v, str)] if isinstance(value, (list, tuple)) else []


def _lines(value: str) -> list[str]:
    return [ln.strip() for ln in value.splitlines()
            if ln.strip() and not ln.strip().startswith("#")]


def _poetry_version(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("version", ""))
    return str(value)
