"""What a command is for: its role (test, lint, format, type-check, build), read from the tool it
runs (`uv run pytest` tests, `cargo clippy` lints) or from the name of the script or target it
calls (`make tests`, `pnpm run lint:all`, `tox -e typing`).

A command found in a repository's text (a CI step, a README block) becomes a candidate only when
it is one plain command the shell parser sees whole: no pipes, `;`, substitutions, variables,
redirections or leading assignments, no option as its first word, nothing outside the project.
It may end up in an agent's allow-list by prefix, so a bare runner (`make`, `uv run`, `npx`)
that would allow anything is never one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from valarmind_tui.safety.gate.allowed_commands import simple_words

Kind = Literal["build", "lint", "format", "typecheck", "test"]
ROLES: tuple[Kind, ...] = ("build", "lint", "format", "typecheck", "test")
CHECKS: tuple[Kind, ...] = ("build", "lint", "typecheck", "test")
"""The roles an agent may be allowed to run: formatting rewrites files, so it is not one."""
Origin = Literal["ci", "runner", "docs", "default"]
ORIGINS: tuple[Origin, ...] = ("ci", "runner", "docs", "default")
"""Most authoritative first: what the project's CI runs, its task runners, its docs, and what
the ecosystem does by default."""


@dataclass(frozen=True)
class ProjectCommand:
    """One command of the project, with where it came from."""

    kind: Kind
    command: str
    source: str
    """The file it was detected from (a workflow, Makefile, package.json, CONTRIBUTING.md...)."""
    origin: Origin = "default"


ROLE_NAMES: dict[Kind, tuple[str, ...]] = {
    # the names of scripts, targets, sessions and envs per role, the likeliest first
    "test": ("test", "tests", "test:all", "test-all", "tests:all", "test:ci", "test:unit",
             "unit", "unittest", "unit-tests", "test-unit", "pytest", "spec", "specs"),
    "lint": ("lint", "lint:all", "lint-all", "lint:check", "linter", "check-lint", "style",
             "check:lint", "lint-check", "flake8", "pylint", "rubocop", "clippy", "eslint",
             "checkstyle", "checkstyleMain", "spotlessCheck", "detekt", "ktlintCheck"),
    "format": ("format", "fmt", "format:all", "format:fix", "fmt:all", "prettier", "black",
               "spotlessApply", "ktlintFormat"),
    "typecheck": ("typecheck", "type-check", "typecheck:all", "types", "check-types",
                  "types:check", "check:types", "typing", "typings", "mypy", "pyright", "tsc"),
    "build": ("build", "build:all", "build-all", "compile", "assemble", "package"),
}
_BY_NAME = {name.lower(): kind for kind, names in ROLE_NAMES.items() for name in names}

_RUNNERS = {
    # a runner and the number of words before what it runs (options skipped)
    ("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("pipenv", "run"), ("rye", "run"),
    ("bundle", "exec"), ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "dlx"), ("yarn", "exec"),
    ("npm", "exec"), ("hatch", "env"),
}
_PYTHONS = re.compile(r"^(python|python3(\.\d+)?|py|pypy3?)$")
_BY_TOOL: dict[str, Kind] = {
    "pytest": "test", "py.test": "test", "unittest": "test", "jest": "test", "vitest": "test",
    "mocha": "test", "ava": "test", "karma": "test", "rspec": "test", "phpunit": "test",
    "pest": "test", "ctest": "test", "bats": "test", "ward": "test", "nose2": "test",
    "flake8": "lint", "pylint": "lint", "pyflakes": "lint", "pycodestyle": "lint",
    "eslint": "lint", "oxlint": "lint", "xo": "lint", "stylelint": "lint", "rubocop": "lint",
    "standardrb": "lint", "golangci-lint": "lint", "staticcheck": "lint", "revive": "lint",
    "phpcs": "lint", "php-cs-fixer": "lint", "shellcheck": "lint", "markdownlint": "lint",
    "black": "format", "isort": "format", "prettier": "format", "gofmt": "format",
    "goimports": "format", "autopep8": "format", "yapf": "format", "rustfmt": "format",
    "mypy": "typecheck", "pyright": "typecheck", "basedpyright": "typecheck",
    "pytype": "typecheck", "phpstan": "typecheck", "psalm": "typecheck", "vue-tsc": "typecheck",
    "build": "build", "webpack": "build", "rollup": "build", "esbuild": "build",
    "tsup": "build", "vite": "build",
}
_SUBCOMMANDS: dict[str, dict[str, Kind]] = {
    "go": {"test": "test", "vet": "lint", "build": "build", "fmt": "format"},
    "cargo": {"test": "test", "nextest": "test", "clippy": "lint", "build": "build",
              "fmt": "format"},
    "dotnet": {"test": "test", "build": "build", "format": "format"},
    "ruff": {"check": "lint", "format": "format"},
    "biome": {"lint": "lint", "check": "lint", "ci": "lint", "format": "format"},
    "deno": {"test": "test", "lint": "lint", "fmt": "format", "check": "typecheck"},
    "mix": {"test": "test", "credo": "lint", "format": "format", "compile": "build"},
    "swift": {"test": "test", "build": "build"},
    "ty": {"check": "typecheck"},
    "pre-commit": {"run": "lint"},
    "prek": {"run": "lint"},
    "next": {"build": "build"},
    "maturin": {"build": "build", "develop": "build"},
    "meson": {"test": "test", "compile": "build"},
    "uv": {"build": "build"},
    "poetry": {"build": "build"},
    "pdm": {"build": "build"},
    "zig": {"build": "build"},
}
_BY_TARGET = {
    # runners whose next word names a script, target, task or env of the project
    "make", "just", "task", "rake", "tox", "nox", "hatch", "pixi", "npm", "pnpm", "yarn",
    "bun", "composer", "turbo", "nx", "lerna", "mage", "cargo", "mvn", "./mvnw", "mvnw",
    "gradle", "./gradlew", "gradlew",
}
_OPTION_WITH_VALUE = {"-e", "-s", "-f", "--filter", "-C", "--dir", "-p", "--project", "-t",
                      "--target", "--session", "--env", "-w", "--workspace"}
_MAVEN_GOALS: dict[str, Kind] = {"test": "test", "verify": "test", "package": "build",
                                 "install": "build", "compile": "build",
                                 "checkstyle:check": "lint", "spotless:check": "lint",
                                 "spotless:apply": "format"}
_GRADLE_TASKS: dict[str, Kind] = {"test": "test", "check": "test", "build": "build",
                                  "assemble": "build", "spotlessApply": "format"}


def role_of_name(name: str) -> Kind | None:
    """The role a script, target or env name stands for (`test:all` -> test), or None."""
    return _BY_NAME.get(name.lower())


def runnable(command: str) -> list[str] | None:
    """The words of `command` when it may be offered as the project's command, else None."""
    command = command.strip()
    if not command or len(command) > 200 or any(ord(c) < 32 for c in command):
        return None
    words = simple_words(command)
    if words is None or any("$" in w or "`" in w for w in words):
        return None
    first = words[0]
    if first.startswith("-") or first.startswith("/") or ".." in first or "~" in first:
        return None
    return words


def role_of(command: str) -> Kind | None:
    """The role of one command line, or None (not a plain command, or not one of the roles)."""
    words = runnable(command)
    if words is None:
        return None
    words = _unwrap(words)
    if not words:
        return None
    tool, rest = words[0], words[1:]
    if tool in _SUBCOMMANDS:
        sub = next((w for w in rest if not w.startswith("-")), "")
        if tool == "ruff" and (not sub or sub not in _SUBCOMMANDS["ruff"]):
            return "lint"  # `ruff .`, `ruff --fix`: the old spelling of `ruff check`
        found = _SUBCOMMANDS[tool].get(sub)
        if found is not None or tool != "cargo":
            return found
    if tool in _BY_TARGET:
        return _role_of_target(tool, rest)
    if tool == "cmake":
        return "build" if "--build" in rest else None
    if tool == "tsc":
        return "build" if {"-b", "--build"} & set(rest) else "typecheck"
    if tool in _BY_TOOL:
        return _BY_TOOL[tool]
    if "/" in tool:  # ./scripts/test.sh, script/lint
        stem = tool.rsplit("/", 1)[-1].split(".")[0]
        return role_of_name(stem)
    return None


def _unwrap(words: list[str]) -> list[str]:
    """The tool a runner runs: `uv run --frozen pytest -q` -> `pytest -q`."""
    for _ in range(3):
        if len(words) >= 2 and (words[0], words[1]) in _RUNNERS:
            words = _skip_options(words[2:])
        elif words and words[0] in ("npx", "bunx", "pnpx"):
            words = _skip_options(words[1:])
        elif len(words) >= 3 and _PYTHONS.match(words[0]) and words[1] == "-m":
            words = words[2:]
        elif words and re.fullmatch(r"(\.venv|venv|vendor|node_modules)/bin/[\w.-]+", words[0]):
            words = [words[0].rsplit("/", 1)[-1], *words[1:]]
        else:
            break
    return words


def _skip_options(words: list[str]) -> list[str]:
    out = list(words)
    while out and out[0].startswith("-"):
        option = out.pop(0)
        if option in _OPTION_WITH_VALUE and "=" not in option and out:
            out.pop(0)
    return out


def _role_of_target(tool: str, rest: list[str]) -> Kind | None:
    names = [w for w in _skip_options(rest) if not w.startswith("-")]
    if tool in ("mvn", "./mvnw", "mvnw"):
        goals = [_MAVEN_GOALS.get(w) for w in rest if not w.startswith("-")]
        return next((g for g in reversed(goals) if g), None)
    if tool in ("gradle", "./gradlew", "gradlew"):
        tasks = [_GRADLE_TASKS.get(w) or role_of_name(w) for w in rest if not w.startswith("-")]
        return next((t for t in tasks if t), None)
    if tool in ("tox", "nox"):
        names = [w for w in names if w not in ("run", "r", "run-parallel", "p")]
        env = _option_value(rest, ("-e", "-s", "--session", "--env"))
        if env is None:
            return "test" if not names else None  # plain `tox` / `nox` runs the test envs
        return role_of_name(env) or _env_role(env)
    if tool in ("turbo", "nx", "lerna"):
        names = [w for w in names if w not in ("run", "run-many")]
        target = _option_value(rest, ("-t", "--target")) or (names[0] if names else "")
        return role_of_name(target)
    if tool in ("hatch", "pixi") and names[:1] == ["run"]:
        names = names[1:]
        if names and ":" in names[0]:  # hatch run lint:check -> the env names the role
            env, script = names[0].split(":", 1)
            return role_of_name(script) or role_of_name(env) or _env_role(env)
    elif tool in ("npm", "pnpm", "yarn", "bun") and names[:1] == ["run"]:
        names = names[1:]
    elif tool in ("npm", "pnpm", "yarn", "bun") and names[:1] == ["t"]:
        return "test"
    if not names:
        return None
    if tool == "cargo":
        return None  # a cargo alias is read with its definition, not guessed from its name
    return role_of_name(names[0])


def _option_value(words: list[str], options: tuple[str, ...]) -> str | None:
    for i, word in enumerate(words):
        if word in options and i + 1 < len(words):
            return words[i + 1].split(",")[0]
        for option in options:
            if option.startswith("--") and word.startswith(option + "="):
                return word.split("=", 1)[1].split(",")[0]
    return None


def _env_role(env: str) -> Kind | None:
    """tox/nox env names such as `py312`, `tests-3.12`, `lint-ci`, `type`."""
    head = re.split(r"[-_.:]", env.lower())[0]
    if re.fullmatch(r"py\d*|pypy\d*|tests?", head):
        return "test"
    if head in ("type", "types", "typing", "mypy", "pyright"):
        return "typecheck"
    return role_of_name(head)
