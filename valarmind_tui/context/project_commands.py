"""The one detector of a project's build, lint, type-check and test commands.

VALARMIND.md's Commands section, QA (its `execute_allow`), the test agent, /qa and the headless
`--allow-project-commands` policy all read it. It derives the commands from the manifests
(manifests.py) and a few marker files; it never runs anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from valarmind_tui.context.manifests.read import Manifests, read_manifests, read_text

Kind = Literal["build", "lint", "typecheck", "test"]
KINDS: tuple[Kind, ...] = ("build", "lint", "typecheck", "test")
_NPM_PLACEHOLDER = "no test specified"


@dataclass(frozen=True)
class ProjectCommand:
    """One command QA may run."""

    kind: Kind
    command: str
    source: str
    """The file it was detected from (pyproject.toml, package.json, Makefile...)."""


def detect_commands(root: Path, manifests: Manifests | None = None) -> list[ProjectCommand]:
    """Every detected command, in build → lint → typecheck → test order, without duplicates."""
    root = root.resolve()
    m = manifests if manifests is not None else read_manifests(root)
    found: list[ProjectCommand] = []
    for detector in (_python, _node, _makefile, _cargo, _go, _maven, _gradle, _ruby, _php,
                     _dotnet):
        found.extend(detector(root, m))
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


def _python(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "python" not in m.ecosystems:
        return []
    src = next((f for f in ("pyproject.toml", "setup.cfg", "setup.py") if f in m.found),
               next(iter(m.found), "requirements.txt"))
    deps = m.all_dependencies()
    out: list[ProjectCommand] = []
    if "ruff" in m.tools or "ruff" in deps:
        out.append(ProjectCommand("lint", f"{_tool(root, 'ruff')} check .", src))
    elif "flake8" in m.tools:
        out.append(ProjectCommand("lint", f"{_tool(root, 'flake8')}", src))
    if "mypy" in m.tools or "mypy" in deps:
        what = "" if _mypy_names_its_targets(root) else " ."
        out.append(ProjectCommand("typecheck", f"{_tool(root, 'mypy')}{what}", src))
    elif "pyright" in m.tools or "pyright" in deps:
        out.append(ProjectCommand("typecheck", f"{_tool(root, 'pyright')}", src))
    has_tests = any((root / d).is_dir() for d in ("tests", "test")) or (
        root / "conftest.py").is_file()
    uses_pytest = any(d == "pytest" or d.startswith("pytest-") for d in deps)
    if "pytest" in m.tools or uses_pytest or has_tests:
        out.append(ProjectCommand("test", f"{_tool(root, 'pytest')} -q", src))
    return out


def _mypy_names_its_targets(root: Path) -> bool:
    """Whether the project's mypy config says what to check (`packages`, `modules` or `files`):
    then `mypy` alone checks that, and `mypy .` would check everything else too (tests,
    scripts, build output) and fail where the project's own command passes."""
    import configparser
    import tomllib

    keys = ("packages", "modules", "files")
    try:
        data = tomllib.loads(read_text(root / "pyproject.toml"))
    except tomllib.TOMLDecodeError:
        data = {}
    table = data.get("tool", {}).get("mypy", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(table, dict) and any(k in table for k in keys):
        return True
    for name in ("mypy.ini", ".mypy.ini", "setup.cfg"):
        parser = configparser.ConfigParser()
        try:
            parser.read_string(read_text(root / name))
        except configparser.Error:
            continue
        if parser.has_section("mypy") and any(parser.has_option("mypy", k) for k in keys):
            return True
    return False


_NODE_SCRIPTS: dict[Kind, tuple[str, ...]] = {
    "build": ("build",),
    "lint": ("lint",),
    "typecheck": ("typecheck", "type-check", "tsc", "check-types", "types"),
    "test": ("test",),
}


def node_runner(root: Path, m: Manifests) -> str:
    """npm, pnpm, yarn or bun: from `packageManager`, else the lock file present."""
    declared = str((m.found.get("package.json") or {}).get("packageManager") or "")
    for runner in ("pnpm", "yarn", "bun", "npm"):
        if declared.startswith(runner + "@"):
            return runner
    if (root / "pnpm-lock.yaml").exists():
        return "pnpm"
    if (root / "yarn.lock").exists():
        return "yarn"
    if (root / "bun.lockb").exists() or (root / "bun.lock").exists():
        return "bun"
    return "npm"


def _node(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "package.json" not in m.found:
        return []
    runner = node_runner(root, m)
    out = []
    for kind, names in _NODE_SCRIPTS.items():
        for name in names:
            script = m.scripts.get(name)
            if script is not None and _NPM_PLACEHOLDER not in script:
                out.append(ProjectCommand(kind, f"{runner} run {name}", "package.json"))
                break
    return out


_MAKE_TARGETS: dict[Kind, tuple[str, ...]] = {
    "build": ("build", "all"),
    "lint": ("lint",),
    "typecheck": ("typecheck", "type-check", "types", "mypy"),
    "test": ("test", "tests", "check"),
}
_TARGET = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", re.MULTILINE)


def make_targets(root: Path) -> tuple[str, list[str]]:
    """(the makefile's name, its targets in file order), or ("", [])."""
    for name in ("Makefile", "makefile", "GNUmakefile"):
        if (root / name).is_file():
            targets = _TARGET.findall(read_text(root / name, 200_000))
            return name, list(dict.fromkeys(t for t in targets if not t.startswith(".")))
    return "", []


def _makefile(root: Path, m: Manifests) -> list[ProjectCommand]:
    name, targets = make_targets(root)
    out = []
    for kind, names in _MAKE_TARGETS.items():
        for target in names:
            if target in targets:
                out.append(ProjectCommand(kind, f"make {target}", name))
                break
    return out


def _cargo(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "rust" not in m.ecosystems:
        return []
    src = "Cargo.toml"
    return [ProjectCommand("build", "cargo build", src),
            ProjectCommand("lint", "cargo clippy", src),
            ProjectCommand("test", "cargo test", src)]


def _go(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "go" not in m.ecosystems:
        return []
    src = "go.mod"
    return [ProjectCommand("build", "go build ./...", src),
            ProjectCommand("lint", "go vet ./...", src),
            ProjectCommand("test", "go test ./...", src)]


def _maven(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "maven" not in m.ecosystems:
        return []
    mvn = "./mvnw" if (root / "mvnw").is_file() else "mvn"
    return [ProjectCommand("build", f"{mvn} compile", "pom.xml"),
            ProjectCommand("test", f"{mvn} test", "pom.xml")]


def _gradle(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "gradle" not in m.ecosystems:
        return []
    gradle = "./gradlew" if (root / "gradlew").is_file() else "gradle"
    src = next(f for f in m.found if "gradle" in f)
    return [ProjectCommand("build", f"{gradle} assemble", src),
            ProjectCommand("test", f"{gradle} test", src)]


def _ruby(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "ruby" not in m.ecosystems:
        return []
    deps = m.all_dependencies()
    src = "Gemfile" if "Gemfile" in m.found else next(iter(m.found), "Gemfile")
    out = []
    if "rubocop" in deps or (root / ".rubocop.yml").is_file():
        out.append(ProjectCommand("lint", "bundle exec rubocop", src))
    if deps & {"rspec", "rspec-rails", "rspec-core"} or (root / "spec").is_dir():
        out.append(ProjectCommand("test", "bundle exec rspec", src))
    elif (root / "Rakefile").is_file() or (root / "test").is_dir():
        out.append(ProjectCommand("test", "bundle exec rake test", src))
    return out


def _php(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "php" not in m.ecosystems:
        return []
    deps = m.all_dependencies()
    out = []
    if "phpstan/phpstan" in deps:
        out.append(ProjectCommand("typecheck", "vendor/bin/phpstan analyse", "composer.json"))
    if "test" in m.scripts:
        out.append(ProjectCommand("test", "composer test", "composer.json"))
    elif "pestphp/pest" in deps:
        out.append(ProjectCommand("test", "vendor/bin/pest", "composer.json"))
    elif "phpunit/phpunit" in deps or any(
            (root / f).is_file() for f in ("phpunit.xml", "phpunit.xml.dist")):
        out.append(ProjectCommand("test", "vendor/bin/phpunit", "composer.json"))
    return out


def _dotnet(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "dotnet" not in m.ecosystems:
        return []
    src = next((f for f in m.found if f.endswith((".sln", "proj"))), ".NET project")
    return [ProjectCommand("build", "dotnet build", src),
            ProjectCommand("test", "dotnet test", src)]
