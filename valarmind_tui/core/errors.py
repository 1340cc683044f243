"""The exception tree. Everything ValarMind raises on purpose derives from ValarMindError.

    ValarMindError
    ├── ConfigError            a config file or flag is wrong: names file, line and key
    ├── UsageError             bad command-line use (unknown agent, missing prompt file)
    ├── ProviderError          the model could not be reached or refused the request
    │   └── AuthError          401/403: names the environment variable holding the key
    ├── ToolError              a tool failed in a way the model can read and retry
    │   ├── PathOutsideProject a path escapes the project root (by .. or by symlink)
    │   └── ToolDenied         a tool refused the call on policy (plan mode, permissions)
    ├── DenialEscalated        repeated similar denials: every agent stops, the person decides
    │   └── HookStopped        a hook answered `continue: false`: the prompt stops
    └── BudgetExhausted        a budget is spent: the next agent model call is not made

How an agent run ends otherwise is not an exception but its outcome's RunStatus (events.py):
running out of turns is `incomplete`, Esc is asyncio cancellation ending `cancelled`.
"""

from __future__ import annotations

from pathlib import Path


class ValarMindError(Exception):
    """Base of every error ValarMind raises deliberately."""


class ConfigError(ValarMindError):
    """A configuration file or value is invalid."""

    def __init__(
        self, message: str, *, file: Path | str | None = None, line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.key = key
        where = ""
        if self.file:
            where = self.file + (f":{line}" if line else "")
            where += ": "
        keypart = f"[{key}] " if key else ""
        super().__init__(f"{where}{keypart}{message}")


class UsageError(ValarMindError):
    """The command line asks for something that cannot be done."""


class ProviderError(ValarMindError):
    """The model provider failed; `retryable` says whether backing off may help, `falls_back`
    whether another model may succeed where this one failed (overload, 5xx, context window)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 falls_back: bool = False) -> None:
        self.status = status
        self.retryable = retryable
        self.falls_back = falls_back
        super().__init__(message)


class AuthError(ProviderError):
    """The provider rejected the credentials (401/403) or none were found."""

    def __init__(
        self, message: str, *, env_var: str | None = None, status: int | None = None
    ) -> None:
        self.env_var = env_var
        super().__init__(message, status=status, retryable=False)


class ToolError(ValarMindError):
    """A tool failed; the message is fed back to the model verbatim."""


class PathOutsideProject(ToolError):
    """A path resolves outside the project root."""


class ToolDenied(ToolError):
    """A tool refused the call on policy; shown as denied, not failed."""


class DenialEscalated(ValarMindError):
    """The agent kept attempting actions that were denied; the whole prompt stops."""


class HookStopped(DenialEscalated):
    """A hook said `continue: false`; the message is its `stopReason`. It stops the prompt the
    way an escalation does (every agent and the gates end; the person decides)."""


class BudgetExhausted(ValarMindError):
    """A budget ([budget], `--max-*`) is spent: raised instead of an agent's next model call,
    so the run ends `budget` with its work kept."""
