"""The commands a project's CI actually runs: the `run:` steps of GitHub Actions, GitLab CI's
`script:`, CircleCI's `run:`/`command:`, Travis' and Azure Pipelines' `script:`, plus the few
actions that stand for a well-known command (golangci-lint-action is `golangci-lint run`).

Workflows named for checking (ci, test, lint, check, main...) are read first, release, docs and
benchmark ones last. A step run in another folder (`working-directory`, or a line with `cd`) is
not the project's own command at its root and is left out. YAML is read with `safe_load`, and a
walk stops after a bounded number of nodes (an alias bomb stays cheap).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from valarmind_tui.context.manifests.facts import read_text
from valarmind_tui.context.project_commands.roles import ProjectCommand, role_of

MAX_NODES = 20_000
MAX_WORKFLOWS = 30
_FIRST = re.compile(r"ci|test|check|lint|main|build|pr|push|python|node|go|rust|tox", re.I)
_LAST = re.compile(r"release|publish|deploy|doc|bench|nightly|stale|label|codeql|pages|"
                   r"dependabot|cron|schedule|coverage|fuzz|security|audit|sync|bump", re.I)
_RUN_KEYS = ("run", "script", "command", "bash", "pwsh", "powershell")
_ACTIONS = {
    # an action used as a step, and the command it stands for
    "golangci/golangci-lint-action": "golangci-lint run",
    "astral-sh/ruff-action": "ruff check",
    "chartboost/ruff-action": "ruff check",
    "pre-commit/action": "pre-commit run --all-files",
    "psf/black": "black --check .",
    "actions-rs/clippy-check": "cargo clippy",
}


def workflow_files(root: Path) -> list[Path]:
    """The project's CI files, those most likely to hold its checks first."""
    found = []
    for folder in (".github/workflows", ".circleci", ".buildkite"):
        path = root / folder
        if path.is_dir() and not path.is_symlink():
            found += sorted(p for p in path.iterdir() if p.suffix in (".yml", ".yaml"))
    found += [root / name for name in (".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml",
                                       "bitbucket-pipelines.yml", ".drone.yml", "appveyor.yml")]
    files = [p for p in found if p.is_file()]
    return sorted(files, key=lambda p: (_rank(p.stem), files.index(p)))[:MAX_WORKFLOWS]


def _rank(stem: str) -> int:
    if _LAST.search(stem):
        return 2
    return 0 if _FIRST.search(stem) or stem.startswith(".") else 1


def ci_commands(root: Path) -> list[ProjectCommand]:
    """Each command with a role, in the order the workflows run them."""
    out: list[ProjectCommand] = []
    for path in workflow_files(root):
        source = path.relative_to(root).as_posix()
        try:
            data = yaml.safe_load(read_text(path, 300_000))
        except yaml.YAMLError:
            continue
        for line in _command_lines(data):
            kind = role_of(line)
            if kind is not None:
                out.append(ProjectCommand(kind, line, source, "ci"))
    return out


def _command_lines(data: Any) -> Iterator[str]:
    budget = [MAX_NODES]
    for text in _run_texts(data, budget):
        yield from split_script(text)


def _run_texts(node: Any, budget: list[int]) -> Iterator[str]:
    budget[0] -= 1
    if budget[0] < 0:
        return
    if isinstance(node, list):
        for item in node:
            yield from _run_texts(item, budget)
        return
    if not isinstance(node, dict):
        return
    if _elsewhere(node):
        return
    uses = node.get("uses")
    if isinstance(uses, str) and uses.split("@")[0] in _ACTIONS:
        yield _ACTIONS[uses.split("@")[0]]
    for key, value in node.items():
        if key in _RUN_KEYS:
            if isinstance(value, str):
                yield value
            elif isinstance(value, list):
                yield from (v for v in value if isinstance(v, str))
            elif isinstance(value, dict):  # CircleCI: run: {command: ...}
                yield from _run_texts(value, budget)
        elif isinstance(value, (dict, list)):
            yield from _run_texts(value, budget)


def _elsewhere(node: dict[Any, Any]) -> bool:
    """A step or job that runs in a sub-folder of the project."""
    if any(k in node for k in ("working-directory", "workingDirectory", "working_directory")):
        return True
    defaults = node.get("defaults")
    run = defaults.get("run") if isinstance(defaults, dict) else None
    return isinstance(run, dict) and "working-directory" in run


def split_script(text: str) -> Iterator[str]:
    """The simple commands of a shell script: lines joined at `\\`, split at `&&`; a script
    that changes folder (`cd`, `pushd`) stops being read there."""
    for line in re.sub(r"[ \t]*\\\n\s*", " ", text).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for part in line.split("&&"):
            part = part.strip()
            if re.match(r"(cd|pushd)\b", part):
                return
            if part:
                yield part
