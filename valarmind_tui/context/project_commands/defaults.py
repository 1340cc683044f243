"""What each ecosystem runs when the project says nothing more: `cargo test`, `go test ./...`,
`pytest -q` through the project's environment manager (`uv run` with uv.lock, `poetry run`,
`pdm run`, or its own `.venv/bin/`), `./gradlew build`, `bundle exec rspec`, `dotnet test`...
The least authoritative source: CI, task runners and docs come first (detect.py).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

from valarmind_tui.context.manifests.facts import Manifests, read_text
from valarmind_tui.context.project_commands.roles import ProjectCommand

_LOCKS = (("uv.lock", "uv run "), ("poetry.lock", "poetry run "), ("pdm.lock", "pdm run "),
          ("pixi.lock", "pixi run "))


def default_commands(root: Path, m: Manifests, ecosystems: list[str]) -> list[ProjectCommand]:
    """The defaults of `ecosystems` (the project's, main language first)."""
    out: list[ProjectCommand] = []
    for ecosystem in ecosystems:
        reader = _DEFAULTS.get(ecosystem)
        if reader is not None:
            out += reader(root, m)
    return out


def _tool(root: Path, name: str) -> str:
    """NAME run the project's way: `uv run NAME` with a uv.lock (poetry, pdm, pixi alike),
    `.venv/bin/NAME` when the project has its own virtualenv with it, else NAME."""
    for lock, prefix in _LOCKS:
        if (root / lock).is_file():
            return prefix + name
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
        out.append(ProjectCommand("format", f"{_tool(root, 'ruff')} format .", src))
    elif "flake8" in m.tools:
        out.append(ProjectCommand("lint", f"{_tool(root, 'flake8')}", src))
    if "black" in m.tools or "black" in deps:
        out.append(ProjectCommand("format", f"{_tool(root, 'black')} .", src))
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
    build = _python_build(root)
    if build:
        out.append(ProjectCommand("build", build, "pyproject.toml"))
    return out


def _python_build(root: Path) -> str:
    """How a package with a `[build-system]` is built, by the tool its lock file names."""
    if "[build-system]" not in read_text(root / "pyproject.toml"):
        return ""
    for lock, tool in (("uv.lock", "uv build"), ("poetry.lock", "poetry build"),
                       ("pdm.lock", "pdm build")):
        if (root / lock).is_file():
            return tool
    return "python -m build"


def _mypy_names_its_targets(root: Path) -> bool:
    """Whether the project's mypy config says what to check (`packages`, `modules` or `files`):
    then `mypy` alone checks that, and `mypy .` would check everything else too (tests,
    scripts, build output) and fail where the project's own command passes."""
    keys = ("packages", "modules", "files")
    try:
        data = tomllib.loads(read_text(root / "pyproject.toml"))
    except tomllib.TOMLDecodeError:
        data = {}
    table = data.get("tool", {}).get("mypy", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(table, dict) and any(k in table for k in keys):
        return True
    import configparser  # here: every session imports this module, few read an .ini

    for name in ("mypy.ini", ".mypy.ini", "setup.cfg"):
        parser = configparser.ConfigParser()
        try:
            parser.read_string(read_text(root / name))
        except configparser.Error:
            continue
        if parser.has_section("mypy") and any(parser.has_option("mypy", k) for k in keys):
            return True
    return False


def _cargo(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "rust" not in m.ecosystems:
        return []
    src = "Cargo.toml"
    return [ProjectCommand("build", "cargo build", src),
            ProjectCommand("lint", "cargo clippy", src),
            ProjectCommand("format", "cargo fmt", src),
            ProjectCommand("test", "cargo test", src)]


def _go(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "go" not in m.ecosystems:
        return []
    src = "go.mod"
    golangci = next((f for f in (".golangci.yml", ".golangci.yaml", ".golangci.toml")
                     if (root / f).is_file()), None)
    lint = ProjectCommand("lint", "golangci-lint run", golangci) if golangci else ProjectCommand(
        "lint", "go vet ./...", src)
    return [ProjectCommand("build", "go build ./...", src), lint,
            ProjectCommand("format", "gofmt -l .", src),
            ProjectCommand("test", "go test ./...", src)]


def _maven(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "maven" not in m.ecosystems:
        return []
    mvn = "./mvnw" if (root / "mvnw").is_file() else "mvn"
    out = [ProjectCommand("build", f"{mvn} compile", "pom.xml"),
           ProjectCommand("test", f"{mvn} test", "pom.xml")]
    pom = read_text(root / "pom.xml")
    if "maven-checkstyle-plugin" in pom or (root / "config" / "checkstyle").is_dir():
        out.append(ProjectCommand("lint", f"{mvn} checkstyle:check", "pom.xml"))
    if "spotless-maven-plugin" in pom:
        out.append(ProjectCommand("format", f"{mvn} spotless:apply", "pom.xml"))
    return out


def _gradle(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "gradle" not in m.ecosystems:
        return []
    gradle = "./gradlew" if (root / "gradlew").is_file() else "gradle"
    src = next(f for f in m.found if "gradle" in f)
    out = [ProjectCommand("build", f"{gradle} build", src),
           ProjectCommand("test", f"{gradle} test", src)]
    build = " ".join(read_text(root / f) for f in m.found if f.startswith("build.gradle"))
    if "checkstyle" in build or (root / "config" / "checkstyle").is_dir():
        out.append(ProjectCommand("lint", f"{gradle} checkstyleMain", src))
    if "spotless" in build:
        out.append(ProjectCommand("format", f"{gradle} spotlessApply", src))
    return out


def _ruby(root: Path, m: Manifests) -> list[ProjectCommand]:
    if "ruby" not in m.ecosystems:
        return []
    deps = m.all_dependencies()
    src = "Gemfile" if "Gemfile" in m.found else next(iter(m.found), "Gemfile")
    out = []
    if "rubocop" in deps or (root / ".rubocop.yml").is_file():
        out.append(ProjectCommand("lint", "bundle exec rubocop", src))
    if "standard" in deps:
        out.append(ProjectCommand("lint", "bundle exec standardrb", src))
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
            ProjectCommand("format", "dotnet format", src),
            ProjectCommand("test", "dotnet test", src)]


def _cmake(root: Path, m: Manifests) -> list[ProjectCommand]:
    text = read_text(root / "CMakeLists.txt", 200_000)
    if not text:
        return []
    out = [ProjectCommand("build", "cmake --build build", "CMakeLists.txt")]
    if "enable_testing" in text or "add_test" in text or "CTest" in text:
        out.append(ProjectCommand("test", "ctest --test-dir build", "CMakeLists.txt"))
    return out


_DEFAULTS: dict[str, Callable[[Path, Manifests], list[ProjectCommand]]] = {
    "python": _python, "rust": _cargo, "go": _go, "maven": _maven, "gradle": _gradle,
    "ruby": _ruby, "php": _php, "dotnet": _dotnet, "cmake": _cmake,
}
