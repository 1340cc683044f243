"""Project trust: whether a repository's own configuration may be loaded.

Everything in a repository is untrusted input. Its configuration (trust_content.SOURCES:
`.valarmind/`, `.mcp.json`, `external-agents.json`, `plugins/`, git's hooks) loads only for
folders the person trusts: the TUI and REPL ask once per project, headless runs need the folder
listed or `--trust-project`. The answer is remembered in the user's config (`trusted_projects` /
`untrusted_projects`) and can be taken back with `/trust no` or `valarmind trust --revoke`. Even
a trusted repository never sets the mode, endpoints, key variables, sandbox or network settings
(config.py strips those).

Trust is of content: trusting records the configuration's fingerprint (trust_record.py). When it
differs at a later load, none of the project's configuration loads until the person trusts it
again: the TUI and REPL ask, showing what changed; headless faces say which files changed and
how to trust them (`valarmind trust`). A folder trusted before fingerprints existed gets its
configuration recorded at its first load (composition.py says so once).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from valarmind_tui.settings.edit import edit_user_config, read_user_config
from valarmind_tui.settings.trust import record as trust_record
from valarmind_tui.settings.trust.content import Fingerprint, fingerprint
from valarmind_tui.settings.trust.content import present as repository_config
from valarmind_tui.settings.trust.record import ContentChanges

T = TypeVar("T")
TRUSTED_KEY = "trusted_projects"
UNTRUSTED_KEY = "untrusted_projects"
LEGACY_TRUSTED_KEY = "trusted_plugin_projects"

CHANGED = "changed since you trusted it"
RETRUST_HINT = "run `valarmind trust` (or /trust yes) to trust it as it is now"


@dataclass(frozen=True)
class ProjectTrust:
    """The trust decision for one project (composition.trust_notices says what it skipped)."""

    root: Path
    trusted: bool
    how: str
    """Why: "listed in your config", "--trust-project", "you declined", "not decided", or
    CHANGED (listed, but its configuration is not the one trusted)."""
    present: tuple[str, ...] = field(default_factory=tuple)
    """Repository configuration that exists in the project."""
    changes: ContentChanges | None = None
    """With CHANGED: what differs from the configuration the person trusted."""
    found: Fingerprint | None = None
    """With CHANGED: the configuration `changes` was read from (what a yes records)."""

    def changed_line(self) -> str:
        """One line for headless faces: which files changed and how to trust them."""
        assert self.changes is not None
        return (f"This folder's configuration {CHANGED} ({self.changes.names()}), so none of "
                f"it was loaded; {RETRUST_HINT}.")


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
        record = trust_record.load(root)
        found = fingerprint(root) if record is not None else None
        changes = trust_record.compare(root, record, found) if record is not None else None
        if changes:
            return ProjectTrust(root, False, CHANGED, present, changes, found)
        return ProjectTrust(root, True, "listed in your config", present)
    return ProjectTrust(root, False, "you declined" if answer is False else "not decided",
                        present)


def record_first_load(root: Path) -> tuple[str, ...] | None:
    """For a folder trusted before fingerprints existed (listed, nothing recorded): record its
    configuration as it loads now. The files recorded, or None when there was nothing to do."""
    if remembered(root) is not True or trust_record.load(root) is not None:
        return None
    return tuple(trust_record.save(root).digests)


def keep_record_through(root: Path, write: Callable[[], T]) -> T:
    """Run `write` (ValarMind itself editing the project's config, e.g. an allow rule the
    person chose to keep for this project) and record the result as trusted, but only when
    the configuration was the trusted one before: a change made by anyone else still asks."""
    before = trust_record.load(root)
    unchanged = before is not None and not trust_record.compare(root, before)
    result = write()
    if unchanged:
        trust_record.save(root)
    return result


def should_ask(trust: ProjectTrust) -> bool:
    """An interactive face asks when the repository has configuration and nobody decided, and
    when a trusted folder's configuration changed since."""
    if trust.how == CHANGED:
        return True
    return not trust.trusted and trust.how == "not decided" and bool(trust.present)


def answer(trust: ProjectTrust, trusted: bool | None) -> bool:
    """What the person said to a face's trust question, kept as it should be: yes is
    remembered with what they were shown; no is remembered, except to a change (then the
    change is skipped this time and asked about again); None ("not now") remembers nothing.
    Whether the configuration loads this time."""
    if trusted is None or (not trusted and trust.how == CHANGED):
        return False
    remember(trust.root, trusted, trust.found)
    return trusted


def remember(root: Path, trusted: bool, found: Fingerprint | None = None) -> Path:
    """Record the person's answer in the user config (the other list loses the folder) and,
    when they trust it, the configuration they trusted (`found`: what they were shown; else
    read now; trust_record.py)."""
    key = str(root.resolve())
    if trusted:
        trust_record.save(root, found)
    else:
        trust_record.forget(root)
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
