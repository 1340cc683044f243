"""One command per role, chosen by authority: what the project's CI runs (ci.py), then its task
runners (runners.py), then its contributor docs (docs.py), then the ecosystem's default
(defaults.py). Within a source the first found wins (the likeliest workflow, runner and name
first); the other commands found for a role are kept as alternatives, a few per role.

The ecosystems' defaults follow the language the project ships: a Rust project whose
pyproject.toml only builds its Python wheel (maturin) gets `cargo test` before `pytest`, and
given the shipped source counts (/init has them) an ecosystem with almost none is left out.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.context.manifests.facts import Manifests, read_text
from valarmind_tui.context.manifests.read import read_manifests
from valarmind_tui.context.project_commands.ci import ci_commands
from valarmind_tui.context.project_commands.defaults import default_commands
from valarmind_tui.context.project_commands.docs import doc_commands
from valarmind_tui.context.project_commands.roles import ROLES, ProjectCommand
from valarmind_tui.context.project_commands.runners import runner_commands

MAX_ALTERNATIVES = 2
"""Alternatives kept per role: a short 'also' line, not every script of the project."""
MINOR_SHARE = 0.1
"""An ecosystem with fewer shipped files than this share of the main one gets no defaults."""
_LANGUAGES = {
    "python": ("python",), "node": ("javascript", "typescript", "tsx"), "go": ("go",),
    "rust": ("rust",), "maven": ("java", "kotlin", "scala"), "gradle": ("java", "kotlin"),
    "ruby": ("ruby",), "php": ("php",), "dotnet": ("csharp",), "cmake": ("c", "cpp"),
}


@dataclass
class Detected:
    """The project's commands: one per role, and the other candidates found."""

    chosen: list[ProjectCommand] = field(default_factory=list)
    alternatives: list[ProjectCommand] = field(default_factory=list)

    def also(self, kind: str) -> list[ProjectCommand]:
        return [c for c in self.alternatives if c.kind == kind]


def detect(root: Path, manifests: Manifests | None = None,
           languages: dict[str, int] | None = None) -> Detected:
    """Every source read once; the most authoritative command per role."""
    root = root.resolve()
    m = manifests if manifests is not None else read_manifests(root)
    candidates = [*ci_commands(root), *runner_commands(root, m), *doc_commands(root),
                  *default_commands(root, m, ecosystems_by_code(root, m, languages))]
    found = Detected()
    for kind in ROLES:
        ofkind = [c for c in candidates if c.kind == kind]
        if not ofkind:
            continue
        found.chosen.append(ofkind[0])
        seen = {_gist(ofkind[0].command)}
        others = []
        for command in ofkind[1:]:
            if _gist(command.command) not in seen:
                seen.add(_gist(command.command))
                others.append(command)
        found.alternatives += others[:MAX_ALTERNATIVES]
    return found


def _gist(command: str) -> tuple[str, ...]:
    """What a command runs, options aside: `pytest -q` is `pytest`, `npm test` `npm run test`
    (an alternative that only differs so is no alternative)."""
    words = [w for w in command.split() if not w.startswith("-")]
    if len(words) == 2 and words[0] in ("npm", "pnpm", "yarn", "bun"):
        words.insert(1, "run")
    return tuple(words)


def ecosystems_by_code(root: Path, m: Manifests,
                       languages: dict[str, int] | None = None) -> list[str]:
    """The project's ecosystems, the one of its main shipped language first."""
    ecosystems = list(m.ecosystems)
    if (root / "CMakeLists.txt").is_file():
        ecosystems.append("cmake")
    if languages:
        counts = {e: sum(languages.get(lang, 0) for lang in _LANGUAGES.get(e, ()))
                  for e in ecosystems}
        top = max(counts.values(), default=0)
        if top:
            ecosystems = sorted((e for e in ecosystems if counts[e] >= top * MINOR_SHARE),
                                key=lambda e: -counts[e])
    elif "python" in ecosystems and "rust" in ecosystems and _builds_with_maturin(root):
        ecosystems.remove("python")
        ecosystems.insert(ecosystems.index("rust") + 1, "python")
    return ecosystems


def _builds_with_maturin(root: Path) -> bool:
    try:
        data = tomllib.loads(read_text(root / "pyproject.toml"))
    except tomllib.TOMLDecodeError:
        return False
    system = data.get("build-system")
    return isinstance(system, dict) and "maturin" in str(system.get("build-backend", ""))
