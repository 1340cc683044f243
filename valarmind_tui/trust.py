"""Project trust: whether a repository's own configuration may be loaded.

Everything in a repository is untrusted input. Its configuration (`.valarmind/`, `.mcp.json`,
`external-agents.json`, `plugins/`) loads only for folders the person trusts: the TUI and REPL
ask once per project, headless runs need the folder listed or `--trust-project`. The answer is
remembered in the user's config (`trusted_projects` / `untrusted_projects`) and can be taken back
with `/trust no` or `valarmind trust --revoke`. Even a trusted repository never sets the mode,
endpoints, key variables, sandbox or network settings (config.py strips those).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.config_edit import edit_user_config, read_user_config

TRUSTED_KEY = "trusted_projects"
UNTRUSTED_KEY = "untrusted_projects"
LEGACY_TRUSTED_KEY = "trusted_plugin_projects"

REPOSITORY_CONFIG = (
    ".valarmind/config.toml", ".valarmind/agents", ".valarmind/hooks", ".mcp.json",
    "external-agents.json", "plugins",
)
"""What a repository can ship that would configure ValarMind, relative to its root."""


@dataclass(frozen=True)
class ProjectTrust:
    """The trust decision for one project (composition.trust_notices says what it skipped)."""

    root: Path
    trusted: bool
    how: str
    """Why: "listed in your config", "--trust-project", "you declined", "not decided"."""
    present: tuple[str, ...] = field(default_factory=tuple)
    """Repository configuration that exists in the project."""


def repository_config(root: Path) -> tuple[str, ...]:
    """The repository configuration files and folders present under `root`."""
    found: list[str] = []
    for rel in REPOSITORY_CONFIG:
        path = root / rel
        if path.is_file() or (path.is_dir() and any(path.iterdir())):
            found.append(rel)
    return tuple(found)


def remembered(root: Path) -> bool | None:
    """True when the user trusted `root`, False when they declined, None when never asked."""
    data = read_user_config()
    key = str(root.resolve())

    def listed(name: str) -> bool:
        values = data.get(name, [])
        if not isinstance(values, list):
            return False
        return any(isinstance(v, str) and _same(v, key) for v in values)

    if listed(UNTRUSTED_KEY):
        return False
    if listed(TRUSTED_KEY) or listed(LEGACY_TRUSTED_KEY):
        return True
    return None


def decide(root: Path, *, flag: bool = False) -> ProjectTrust:
    """The decision without asking anyone (headless faces, and before a face asks)."""
    root = root.resolve()
    present = repository_config(root)
    if flag:
        return ProjectTrust(root, True, "--trust-project", present)
    answer = remembered(root)
    if answer is True:
        return ProjectTrust(root, True, "listed in your config", present)
    return ProjectTrust(root, False, "you declined" if answer is False else "not decided",
                        present)


def should_ask(trust: ProjectTrust) -> bool:
    """An interactive face asks when the repository has configuration and nobody decided."""
    return not trust.trusted and trust.how == "not decided" and bool(trust.present)


def remember(root: Path, trusted: bool) -> Path:
    """Record the person's answer in the user config (the other list loses the folder)."""
    key = str(root.resolve())
    add, drop = (TRUSTED_KEY, UNTRUSTED_KEY) if trusted else (UNTRUSTED_KEY, TRUSTED_KEY)

    def change(doc: dict) -> None:
        for name in (drop, LEGACY_TRUSTED_KEY) if not trusted else (drop,):
            if name in doc:
                kept = [v for v in doc[name] if not (isinstance(v, str) and _same(v, key))]
                doc[name] = kept
        values = list(doc.get(add, []))
        if not any(isinstance(v, str) and _same(v, key) for v in values):
            values.append(key)
        doc[add] = values

    return edit_user_config(change)


def _same(listed: str, key: str) -> bool:
    try:
        return str(Path(listed).expanduser().resolve()) == key
    except (OSError, RuntimeError):
        return False
