"""How the gate asks a person (or a policy) and what comes back."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from valarmind_tui.core.events import ApprovalDecision


class PermissionMode(StrEnum):
    """default: ask for writes and commands; accept-edits: writes inside the project pass;
    plan: read-only; bypass: everything passes except deny rules."""

    DEFAULT = "default"
    ACCEPT_EDITS = "accept-edits"
    PLAN = "plan"
    BYPASS = "bypass"

    def next(self) -> PermissionMode:
        """The mode Shift+Tab cycles to."""
        order = [self.DEFAULT, self.ACCEPT_EDITS, self.PLAN]
        return order[(order.index(self) + 1) % len(order)] if self in order else self.DEFAULT


@dataclass(frozen=True)
class ApprovalRequest:
    """What the person is asked to allow."""

    request_id: str
    agent_id: str
    tool: str
    summary: str
    reason: str
    diff: str | None = None
    command: str | None = None
    cwd: str | None = None
    path: str | None = None
    rule: str = ""
    """The rule `allow_session`/`allow_project` would remember, e.g. `bash(git status)`."""
    protected: str | None = None
    """The protected-path rule the call writes under (`.git/**`, `.mcp.json`...): only a
    person may allow it, so policy approvers deny it."""
    deny_rule: str | None = None
    """A deny rule that may apply to a command the gate could not fully parse: only a person
    may allow it, so policy approvers deny it."""


@dataclass(frozen=True)
class ApprovalAnswer:
    """The answer; `feedback` on a deny goes back to the model."""

    decision: ApprovalDecision
    feedback: str | None = None

    @property
    def allowed(self) -> bool:
        return self.decision != "deny"


class Approver(Protocol):
    """Answers the gate's "ask": a TUI modal, a REPL prompt, or a headless policy."""

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer: ...


@dataclass
class PolicyApprover:
    """Headless and MCP faces: a fixed answer per risk, no person involved."""

    allow_writes: bool = False
    allow_execute: bool = False
    allow_sampling: bool = False
    """Answer MCP servers' sampling requests (tool `mcp_sampling`) with our model."""
    project_commands: tuple[str, ...] = ()
    """Commands the project declares (detected build/lint/typecheck/test) that pass: a call
    that is one simple command starting with one of them (`--allow-project-commands`)."""
    denied: list[ApprovalRequest] = field(default_factory=list)

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        if request.protected is not None:
            self.denied.append(request)
            return ApprovalAnswer("deny", feedback=(
                f"Denied by the headless policy: writing {request.path or 'this path'} falls "
                f"under the protected-path rule {request.protected}; only a person (or a user "
                "allow rule naming it) may allow it."))
        if request.deny_rule is not None:
            self.denied.append(request)
            return ApprovalAnswer("deny", feedback=(
                f"Denied by the headless policy: the deny rule {request.deny_rule} may apply and "
                "the command could not be checked against it; only a person may allow it."))
        if request.tool == "mcp_sampling":
            allowed = self.allow_sampling
        else:
            allowed = (request.command is None and self.allow_writes) or (
                request.command is not None and (self.allow_execute or self._declared(request))
            )
        if allowed:
            return ApprovalAnswer("allow_once")
        self.denied.append(request)
        return ApprovalAnswer(
            "deny", feedback="Denied by the headless policy; the person was not asked."
        )

    def _declared(self, request: ApprovalRequest) -> bool:
        if not self.project_commands or request.command is None or request.tool != "bash":
            return False
        from valarmind_tui.safety.gate.allowed_commands import allowed_by_prefix

        return allowed_by_prefix(request.command, self.project_commands) is not None
