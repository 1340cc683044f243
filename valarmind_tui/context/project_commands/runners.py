"""The project's task runners: Makefile targets, justfile recipes, Taskfile tasks,
`package.json` and composer scripts, pixi tasks, hatch scripts, nox sessions, tox envs, rake
tasks and cargo aliases. A script, target or env stands for a role by its conventional name
(`test`, `tests`, `test:all`, `lint`, `fmt`, `typecheck`...; roles.ROLE_NAMES), the likeliest
name first; a cargo alias by what it expands to.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from valarmind_tui.context.manifests.facts import Manifests, read_text
from valarmind_tui.context.project_commands.roles import (
    ROLE_NAMES,
    Kind,
    ProjectCommand,
    role_of,
    role_of_name,
)

_NPM_PLACEHOLDER = "no test specified"
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?![=:])", re.MULTILINE)
_JUST_RECIPE = re.compile(r"^@?([A-Za-z0-9_-]+)(?:\s+[^:=\n]*)?:(?!=)", re.MULTILINE)
_JUST_KEYWORDS = {"set", "alias", "export", "import", "mod"}
_MAKE_ONLY: dict[str, Kind] = {"check": "test"}
"""Names that stand for a role in a Makefile only (`make check` is the GNU test target)."""


def runner_commands(root: Path, m: Manifests) -> list[ProjectCommand]:
    """One command per role per runner, in the order of the runners above."""
    out: list[ProjectCommand] = []
    readers: tuple[Callable[[Path, Manifests], list[ProjectCommand]], ...] = (
        _makefile, _justfile, _taskfile, _package_json, _pixi, _hatch, _nox, _tox, _rake,
        _composer, _cargo_aliases)
    for reader in readers:
        out += reader(root, m)
    return out


def choose(names: Iterable[str], command: Callable[[str], str], source: str,
           extra: dict[str, Kind] | None = None) -> list[ProjectCommand]:
    """For each role, the runner's likeliest name for it as a command."""
    available = list(dict.fromkeys(names))
    lowered = {n.lower(): n for n in available}
    out = []
    for kind, candidates in ROLE_NAMES.items():
        extras = [n for n, k in (extra or {}).items() if k == kind]
        name = next((lowered[c.lower()] for c in (*candidates, *extras)
                     if c.lower() in lowered), None)
        if name is not None:
            out.append(ProjectCommand(kind, command(name), source, "runner"))
    return out


def make_targets(root: Path) -> tuple[str, list[str]]:
    """(the makefile's name, its targets in file order), or ("", [])."""
    for name in ("Makefile", "makefile", "GNUmakefile"):
        if (root / name).is_file():
            text = read_text(root / name, 200_000)
            targets = _MAKE_TARGET.findall(text)
            return name, list(dict.fromkeys(t for t in targets if not t.startswith((".", "%"))
                                            and "$" not in t))
    return "", []


def _makefile(root: Path, m: Manifests) -> list[ProjectCommand]:
    name, targets = make_targets(root)
    return choose(targets, lambda t: f"make {t}", name, _MAKE_ONLY) if name else []


def _justfile(root: Path, m: Manifests) -> list[ProjectCommand]:
    path = next((root / n for n in ("justfile", "Justfile", ".justfile")
                 if (root / n).is_file()), None)
    if path is None:
        return []
    recipes = [r for r in _JUST_RECIPE.findall(read_text(path, 200_000))
               if r not in _JUST_KEYWORDS]
    return choose(recipes, lambda r: f"just {r}", path.name)


def _taskfile(root: Path, m: Manifests) -> list[ProjectCommand]:
    path = next((root / n for n in ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml")
                 if (root / n).is_file()), None)
    if path is None:
        return []
    tasks = _yaml(read_text(path, 200_000)).get("tasks")
    return choose(list(tasks), lambda t: f"task {t}", path.name) if isinstance(
        tasks, dict) else []


def node_runner(root: Path, m: Manifests) -> str:
    """npm, pnpm, yarn or bun: from `packageManager`, else the lock file present."""
    declared = str((m.found.get("package.json") or {}).get("packageManager") or "")
    for runner in ("pnpm", "yarn", "bun", "npm"):
        if declared.startswith(runner + "@"):
            return runner
    for lock, runner in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"),
                         ("bun.lockb", "bun"), ("bun.lock", "bun")):
        if (root / lock).exists():
            return runner
    return "npm"


def _package_json(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "package.json" not in m.found:
        return []
    runner = node_runner(root, m)
    scripts = [name for name, body in m.scripts.items() if _NPM_PLACEHOLDER not in body]
    return choose(scripts, lambda s: f"{runner} run {s}", "package.json")


def _pixi(root: Path, m: Manifests) -> list[ProjectCommand]:
    tasks = _toml(root / "pixi.toml").get("tasks")
    source = "pixi.toml"
    if not isinstance(tasks, dict):
        tasks = _tool(root, "pixi").get("tasks")
        source = "pyproject.toml"
    return choose(list(tasks), lambda t: f"pixi run {t}", source) if isinstance(
        tasks, dict) else []


def _hatch(root: Path, m: Manifests) -> list[ProjectCommand]:
    envs = _toml(root / "hatch.toml").get("envs")
    source = "hatch.toml"
    if not isinstance(envs, dict):
        envs = _tool(root, "hatch").get("envs")
        source = "pyproject.toml"
    if not isinstance(envs, dict):
        return []
    names: dict[str, str] = {}  # what the role is looked up by -> the hatch run argument
    for env, table in envs.items():
        scripts = table.get("scripts") if isinstance(table, dict) else None
        for script in (scripts if isinstance(scripts, dict) else {}):
            target = script if env == "default" else f"{env}:{script}"
            names.setdefault(script, target)
            if env != "default":
                names.setdefault(env, target)  # `lint:all`, `types:check`
    found = choose(names, lambda n: f"hatch run {names[n]}", source)
    if "hatch-test" in envs and not any(c.kind == "test" for c in found):
        found.append(ProjectCommand("test", "hatch test", source, "runner"))
    return found


def _nox(root: Path, m: Manifests) -> list[ProjectCommand]:
    text = read_text(root / "noxfile.py", 200_000)
    sessions = []
    for decorator, function in re.findall(
            r"@(?:nox\.)?session\b([^\n]*)\n(?:\s*@[^\n]*\n)*\s*def\s+(\w+)", text):
        named = re.search(r"""name\s*=\s*["']([\w.:-]+)["']""", decorator)
        sessions.append(named.group(1) if named else function)
    extra: dict[str, Kind] = {}
    for session in sessions:
        if role_of(f"nox -s {session}") is not None:
            extra.setdefault(session, role_of(f"nox -s {session}") or "test")
    return choose(sessions, lambda s: f"nox -s {s}", "noxfile.py", extra)


def _tox(root: Path, m: Manifests) -> list[ProjectCommand]:
    envs = _tox_envs(root)
    if envs is None:
        return []
    names, source = envs
    extra: dict[str, Kind] = {}
    for env in names:
        kind = role_of(f"tox -e {env}")
        if kind is not None and kind != "test":
            extra.setdefault(env, kind)
    found = [c for c in choose(names, lambda e: f"tox -e {e}", source, extra) if c.kind != "test"]
    return [ProjectCommand("test", "tox", source, "runner"), *found]


def _tox_envs(root: Path) -> tuple[list[str], str] | None:
    if (root / "tox.ini").is_file():
        import configparser  # here: every session imports this module, few have a tox.ini

        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(read_text(root / "tox.ini", 200_000))
        except configparser.Error:
            return [], "tox.ini"
        envs = [s.split(":", 1)[1] for s in parser.sections() if s.startswith("testenv:")]
        listed = parser.get("tox", "envlist", fallback="") if parser.has_section("tox") else ""
        envs += [e.strip() for e in re.split(r"[,\n]", listed) if e.strip() and "{" not in e]
        return list(dict.fromkeys(envs)), "tox.ini"
    tox = _tool(root, "tox")
    if not tox:
        return None
    env = tox.get("env")
    return (list(env) if isinstance(env, dict) else []), "pyproject.toml"


def _rake(root: Path, m: Manifests) -> list[ProjectCommand]:
    text = read_text(root / "Rakefile", 200_000)
    if not text:
        return []
    tasks = re.findall(r"""(?m)^\s*task\s*\(?\s*[:"']?([\w:-]+)""", text)
    for klass, default in (("RSpec::Core::RakeTask", "spec"), ("Rake::TestTask", "test"),
                           ("RuboCop::RakeTask", "rubocop"), ("StandardRB::RakeTask", "standard")):
        for named in re.findall(rf"{re.escape(klass)}\.new\s*\(?\s*(:\w+)?", text):
            tasks.append(named.lstrip(":") or default)
    prefix = "bundle exec rake" if (root / "Gemfile").is_file() else "rake"
    return choose(tasks, lambda t: f"{prefix} {t}", "Rakefile", {"standard": "lint"})


def _composer(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "composer.json" not in m.found:
        return []
    extra: dict[str, Kind] = {"phpstan": "typecheck", "psalm": "typecheck", "cs": "lint",
                              "cs-check": "lint", "phpcs": "lint", "cs-fix": "format"}
    return choose(m.scripts, lambda s: f"composer {s}", "composer.json", extra)


def _cargo_aliases(root: Path, m: Manifests) -> list[ProjectCommand]:
    for name in (".cargo/config.toml", ".cargo/config"):
        aliases = _toml(root / name).get("alias")
        if isinstance(aliases, dict):
            extra: dict[str, Kind] = {}
            for alias, value in aliases.items():
                expanded = " ".join(value) if isinstance(value, list) else str(value)
                kind = role_of(f"cargo {expanded}") or role_of_name(alias)
                if kind is not None:
                    extra[alias] = kind
            return choose([a for a in aliases if a in extra], lambda a: f"cargo {a}", name,
                          extra)
    return []


def _tool(root: Path, name: str) -> dict[str, Any]:
    tool = _toml(root / "pyproject.toml").get("tool")
    table = tool.get(name) if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else {}


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_text(path)) if path.is_file() else {}
    except tomllib.TOMLDecodeError:
        return {}


def _yaml(text: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}
