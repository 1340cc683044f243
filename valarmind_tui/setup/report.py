"""What a setup scan found: one row per file (or entry in a file), loaded or not, and why."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Kind(StrEnum):
    SKILL = "skill"
    COMMAND = "command"
    SUBAGENT = "subagent"
    RULE = "permission rule"
    HOOK = "hook"
    CONTEXT_FILE = "context file"


class Scope(StrEnum):
    PROJECT = "project"
    USER = "user"
    PLUGIN = "plugin"


@dataclass(frozen=True)
class Found:
    """One thing a scan found. `reason` says why it did not load, or what was left out of it
    (an unknown key, a name that clashed) when it did."""

    kind: Kind
    name: str
    source: Path
    scope: Scope
    tool: str
    """Whose format it is in: "valarmind", "claude", "codex", "gemini", "opencode", "agents"."""
    loaded: bool
    reason: str = ""
