"""The one detector of a project's build, lint, format, type-check and test commands.

VALARMIND.md's Commands section, QA (its `execute_allow`), the test agent, /qa, the commit
chain and the headless `--allow-project-commands` policy all read it. One command per role,
ranked by authority (detect.py): the project's CI (ci.py), its task runners (runners.py), its
contributor docs (docs.py), the ecosystem's defaults (defaults.py); what a command is for and
whether it is plain enough to offer is roles.py. It reads files only; it never runs anything.
"""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.context.manifests.facts import Manifests
from valarmind_tui.context.project_commands.detect import Detected, detect
from valarmind_tui.context.project_commands.roles import CHECKS, ROLES, Kind, ProjectCommand
from valarmind_tui.context.project_commands.runners import make_targets, node_runner

__all__ = ["CHECKS", "ROLES", "Detected", "Kind", "ProjectCommand", "commands_of", "detect",
           "detect_commands", "make_targets", "node_runner", "render_commands"]


def detect_commands(root: Path, manifests: Manifests | None = None,
                    languages: dict[str, int] | None = None) -> list[ProjectCommand]:
    """The project's command for each role it has, in build → lint → format → typecheck →
    test order."""
    return detect(root, manifests, languages).chosen


def commands_of(commands: list[ProjectCommand], kind: Kind | None = None) -> tuple[str, ...]:
    """The commands of `kind`; without one, of every role an agent may run (not format, which
    rewrites files)."""
    return tuple(c.command for c in commands
                 if c.kind == kind or (kind is None and c.kind in CHECKS))


def render_commands(commands: list[ProjectCommand]) -> str:
    """A markdown list for prompts and /qa."""
    if not commands:
        return "No build, lint, type-check or test commands were detected in this project."
    rows = [f"- {c.kind}: `{c.command}` (from {c.source})" for c in commands]
    return "The project's detected commands:\n" + "\n".join(rows)
