"""The checks' own files: the scripts a check command runs, the runner files that define it
(package.json scripts, Makefile targets, tox.ini, noxfile.py, justfile), the test runner's
configuration, and the file a detected check came from. An edit that changes what a check runs,
or makes a failure pass (`|| true`, `exit 0`, `; true`, a Makefile `-`, `continue-on-error`), is
evidence; other edits to these files (a new dependency in package.json) are not.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from valarmind_tui.agents.goal.weakening import js_tests, python_tests
from valarmind_tui.agents.goal.weakening.model import Evidence, FileChange

_IGNORES_FAILURE = re.compile(
    r"\|\|\s*(true|:|exit(\s+0)?)\s*(;|$|\)|&&|\")|;\s*(true|exit\s+0)\s*(;|$|\")"
    r"|^\s*exit\s+0\s*$|\bset\s+\+e\b|continue-on-error:\s*true|--exit-zero\b"
    r"|--passWithNoTests\b|\bignore_errors\s*=\s*true", re.I)
_INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "python", "python3", "node", "ruby",
                           "perl", "tsx", "ts-node", "bun", "deno", "php"})
_NODE_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_PYTEST_SECTIONS = {"pytest.ini": None, "pyproject.toml": "[tool.pytest.ini_options]",
                    "setup.cfg": "[tool:pytest]", "tox.ini": "[pytest]"}


@dataclass(frozen=True)
class CheckSpec:
    """What the detector needs of a check: its command and the file it was detected from."""

    command: str
    source: str | None = None


def check_file_evidence(changes: Sequence[FileChange],
                        checks: Sequence[CheckSpec]) -> list[Evidence]:
    by_path = {c.path: c for c in changes}
    found: list[Evidence] = []
    for check in checks:
        words = _words(check.command)
        for path in _named_files(words, by_path):
            change = by_path[path]
            found.append(Evidence(path, _first_changed_line(change), "check_file_edited",
                                  f"`{check.command}` runs this file, and the round changed it"))
            found += _ignored_failures(change, "a script the check runs")
        found += _runner_evidence(check, words, by_path)
        if check.source and check.source in by_path:
            found += _source_evidence(check, by_path[check.source])
    for path, section in _PYTEST_SECTIONS.items():
        if path in by_path:
            found += _runner_config(by_path[path], section)
    return _unique(found)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _named_files(words: list[str], by_path: dict[str, FileChange]) -> list[str]:
    """The script a check runs (`./check.sh`, `sh scripts/check.sh`, `python tools/lint.py`),
    when the round changed it. A file a check only reads (`ruff check app.py`) is the work."""
    script = _script(words)
    if script is None:
        return []
    path = script.removeprefix("./")
    if path in by_path and not (python_tests.is_test_file(path) or js_tests.is_test_file(path)):
        return [path]
    return []


def _script(words: list[str]) -> str | None:
    if not words:
        return None
    tool = words[0].rsplit("/", 1)[-1]
    if tool not in _INTERPRETERS:
        return words[0]
    for i, word in enumerate(words[1:], start=1):
        if word in ("-m", "-c", "-e", "--eval"):
            return None  # a module or inline code, no script file
        if not word.startswith("-"):
            return words[i]
    return None


def _runner_evidence(check: CheckSpec, words: list[str],
                     by_path: dict[str, FileChange]) -> list[Evidence]:
    if not words:
        return []
    tool = words[0].rsplit("/", 1)[-1]
    if tool in _NODE_RUNNERS and "package.json" in by_path:
        script = _node_script(words)
        return _package_script(by_path["package.json"], script, check.command)
    if tool == "make":
        targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        for name in _MAKEFILES:
            if name in by_path:
                return _make_target(by_path[name], targets[0] if targets else None,
                                    check.command)
    runner_files = {"tox": "tox.ini", "nox": "noxfile.py", "just": "justfile"}
    path = runner_files.get(tool)
    if path is not None and path in by_path:
        change = by_path[path]
        return [Evidence(path, _first_changed_line(change), "check_file_edited",
                         f"`{check.command}` is defined in this file, and the round changed "
                         "it"), *_ignored_failures(change, f"`{check.command}`'s definition")]
    return []


def _node_script(words: list[str]) -> str:
    rest = [w for w in words[1:] if not w.startswith("-")]
    if rest and rest[0] == "run":
        rest = rest[1:]
    return rest[0] if rest else "test"


def _package_script(change: FileChange, script: str, command: str) -> list[Evidence]:
    before, after = _scripts(change.before), _scripts(change.after)
    old, new = before.get(script), after.get(script)
    if old == new:
        return []
    line = _line_containing(change.after or "", f'"{script}"')
    found = [Evidence("package.json", line, "check_command_changed",
                      f"`{command}` runs the script {script!r}: {old!r} → {new!r}")]
    if new is not None and _IGNORES_FAILURE.search(new) and not (
            old and _IGNORES_FAILURE.search(old)):
        found.append(Evidence("package.json", line, "failure_ignored",
                              f"the script {script!r} now ignores failures: {new}"))
    return found


def _scripts(text: str | None) -> dict[str, str]:
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return {k: str(v) for k, v in scripts.items()} if isinstance(scripts, dict) else {}


def _make_target(change: FileChange, target: str | None, command: str) -> list[Evidence]:
    old = _recipe(change.before or "", target)
    new = _recipe(change.after or "", target)
    if old == new:
        return []
    name = target or "the default target"
    line = _line_containing(change.after or "", f"{target}:" if target else "")
    found = [Evidence(change.path, line, "check_command_changed",
                      f"`{command}` runs {name}, whose recipe changed: {old!r} → {new!r}")]
    added = [r for r in new if r not in old]
    if any(_IGNORES_FAILURE.search(r) or r.lstrip("@").startswith("-") for r in added):
        found.append(Evidence(change.path, line, "failure_ignored",
                              f"{name}'s recipe now ignores failures: {added}"))
    return found


def _recipe(text: str, target: str | None) -> list[str]:
    """The recipe lines of `target` (the first target when None)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = re.match(r"^([A-Za-z0-9_.\-/ ]+?)\s*::?(?!=)", line)
        if match is None or line.startswith("\t"):
            continue
        names = match.group(1).split()
        if target is None and names[0].startswith("."):
            continue
        if target is None or target in names:
            recipe = []
            for body in lines[i + 1:]:
                if not body.startswith("\t"):
                    break
                recipe.append(body.strip())
            return recipe
    return []


def _source_evidence(check: CheckSpec, change: FileChange) -> list[Evidence]:
    """The file a detected check came from: its command gone or changed, or failures
    ignored on a line that now runs it."""
    found = []
    before, after = change.before or "", change.after or ""
    if check.command in before and check.command not in after:
        found.append(Evidence(change.path, _first_changed_line(change),
                              "check_command_changed",
                              f"the check `{check.command}` was detected from this file and "
                              "the round changed or removed it"))
    for line_no, line in _added_lines(change):
        if check.command in line and _IGNORES_FAILURE.search(line):
            found.append(Evidence(change.path, line_no, "failure_ignored",
                                  f"the check's line now ignores failures: {line.strip()}"))
    return found


def _runner_config(change: FileChange, section: str | None) -> list[Evidence]:
    """The test runner's configuration (which tests run, with which options) changed."""
    old, new = _section(change.before or "", section), _section(change.after or "", section)
    if old == new:
        return []
    where = section or "pytest.ini"
    return [Evidence(change.path, _line_containing(change.after or "", section or "[pytest]"),
                     "runner_config", f"the test runner's configuration ({where}) changed: "
                     f"{_short_diff(old, new)}")]


def _section(text: str, header: str | None) -> list[str]:
    lines = text.splitlines()
    if header is None:
        return [ln.strip() for ln in lines if ln.strip()]
    out: list[str] = []
    inside = False
    for line in lines:
        if line.strip().startswith("["):
            inside = line.strip() == header
            continue
        if inside and line.strip() and not line.strip().startswith("#"):
            out.append(line.strip())
    return out


def _ignored_failures(change: FileChange, what: str) -> list[Evidence]:
    return [Evidence(change.path, n, "failure_ignored",
                     f"{what} now ignores failures: {line.strip()}")
            for n, line in _added_lines(change) if _IGNORES_FAILURE.search(line)]


def _added_lines(change: FileChange) -> list[tuple[int, str]]:
    before = (change.before or "").splitlines()
    after = (change.after or "").splitlines()
    out = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            out += [(j + 1, after[j]) for j in range(j1, j2)]
    return out


def _first_changed_line(change: FileChange) -> int:
    before = (change.before or "").splitlines()
    after = (change.after or "").splitlines()
    for i, (a, b) in enumerate(zip(before, after, strict=False)):
        if a != b:
            return i + 1
    return min(len(before), len(after)) + 1


def _line_containing(text: str, needle: str) -> int:
    for i, line in enumerate(text.splitlines()):
        if needle and needle in line:
            return i + 1
    return 1


def _short_diff(old: list[str], new: list[str]) -> str:
    gone = [ln for ln in old if ln not in new]
    added = [ln for ln in new if ln not in old]
    parts = [f"-{ln}" for ln in gone[:3]] + [f"+{ln}" for ln in added[:3]]
    return ", ".join(parts)


def _unique(found: list[Evidence]) -> list[Evidence]:
    return list(dict.fromkeys(found))
