"""Quality gates (seed 001): when a change must pass review and QA before "done".

A ChangeTracker watches the bus for successful write_file/edit_file calls made by an agent and
its descendants, and records specialist results in order, so the orchestrator can tell whether
review and QA already ran after the last change. It also records every bash call of the agent
tree (command, status, exit code): the evidence gate_verdicts weighs the specialists' claims
against.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.agents.delegation.delegate import DelegationResult
from valarmind_tui.agents.results import QAResult, ReviewResult
from valarmind_tui.agents.verification.verdicts import (
    CommandRun,
    VerificationVerdict,
    prompt_status,
)
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import (
    AgentSpawned,
    Event,
    RunStatus,
    ToolCallFinished,
    ToolCallStarted,
)
from valarmind_tui.safety.paths import is_sensitive

WRITE_TOOLS = ("write_file", "edit_file")
_RISK = re.compile(
    r"(?:^|[/_.\-])(auth|authn|authz|authenticat\w*|authori[sz]\w*|login|oauth2?|jwt|"
    r"passwords?|passwd|payments?|billing|"
    r"checkout|stripe|invoices?|security|secrets?|credentials?|crypto\w*|tokens?|permissions?|"
    r"acl|keys?)(?=$|[/_.\-])",
    re.IGNORECASE,
)


def is_risk_path(path: str) -> bool:
    """Auth, payment, security or secrets code, judged by the path."""
    return bool(_RISK.search(path)) or is_sensitive(path)


def gates_required(files: list[str]) -> list[str]:
    """Why review and QA are mandatory for a change to `files` (empty: they are optional)."""
    reasons = []
    if len(files) >= 2:
        reasons.append(f"the change touches {len(files)} files")
    risky = [f for f in files if is_risk_path(f)]
    if risky:
        reasons.append(f"risk code: {', '.join(risky)}")
    return reasons


class ChangeTracker:
    """Files changed by an agent tree, and specialist results, in one sequence."""

    def __init__(self, bus: EventBus, root_agent_id: str = "main") -> None:
        self.family = {root_agent_id}
        self.changes: dict[str, int] = {}
        self.results: list[tuple[int, DelegationResult]] = []
        self._pending: dict[tuple[str, str], str] = {}
        self._commands: dict[tuple[str, str], str] = {}
        self.runs: list[CommandRun] = []
        self._seq = itertools.count(1)
        self._remove = bus.add_listener(self._on_event)

    def close(self) -> None:
        self._remove()

    @property
    def files(self) -> list[str]:
        return list(self.changes)

    def record(self, result: DelegationResult) -> None:
        self.results.append((next(self._seq), result))

    def latest(self, agent: str, *, finished: bool = True) -> DelegationResult | None:
        """The agent's last result after the last file change, if any: only one that ended
        `done` unless `finished` is False (a timed-out QA is evidence too: its gate did not
        run)."""
        last_change = max(self.changes.values(), default=0)
        for seq, result in reversed(self.results):
            if result.agent == agent and seq > last_change and (
                    not finished or result.status == RunStatus.DONE):
                return result
        return None

    def runs_by(self, agent_id: str) -> list[CommandRun]:
        """The bash calls one agent made, in order."""
        return [r for r in self.runs if r.agent_id == agent_id]

    def _on_event(self, event: Event) -> None:
        match event:
            case AgentSpawned() if event.parent_id in self.family:
                self.family.add(event.agent_id)
            case ToolCallStarted() if event.agent_id in self.family:
                key = (event.agent_id, event.call_id)
                if event.name in WRITE_TOOLS:
                    path = _path_of(event.arguments)
                    if path:
                        self._pending[key] = path
                command = event.arguments.get("command")
                if event.name == "bash" and isinstance(command, str):
                    self._commands[key] = command
            case ToolCallFinished():
                key = (event.agent_id, event.call_id)
                command = self._commands.pop(key, None)
                if command is not None:
                    self.runs.append(CommandRun(event.agent_id, command, event.status,
                                                event.exit_code))
                path = self._pending.pop(key, None)
                if path and event.status == "ok":
                    self.changes.pop(path, None)
                    self.changes[path] = next(self._seq)
            case _:
                pass  # the rest of the bus tells nothing about what the change did


def _path_of(arguments: dict[str, Any]) -> str | None:
    for key in ("path", "file_path", "file"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value.removeprefix("./")
    return None


@dataclass
class VerificationReport:
    """What the quality gates required, ran and found; `verdicts` are the evidence-based
    outcome (gate_verdicts), the review and QA results what the agents claimed."""

    reasons: list[str]
    files: list[str]
    review: ReviewResult | None = None
    qa: QAResult | None = None
    fix_rounds: int = 0
    ran: list[str] = field(default_factory=list)
    """Gates the orchestrator ran itself because the model had not."""
    notes: list[str] = field(default_factory=list)
    verdicts: list[VerificationVerdict] = field(default_factory=list)
    checks: list[VerificationVerdict] = field(default_factory=list)
    """QA's checks one by one (the qa verdict sums them up)."""

    @property
    def required(self) -> bool:
        return bool(self.reasons)

    @property
    def status(self) -> RunStatus:
        """done when every gate passed, rejected when one failed, unverified otherwise."""
        if not self.verdicts:
            return RunStatus.UNVERIFIED
        return prompt_status(self.verdicts)

    @property
    def passed(self) -> bool:
        return self.status == RunStatus.DONE

    def render(self) -> str:
        """The "Quality gates" section appended to the final answer (and kept in history)."""
        title = {RunStatus.DONE: "passed", RunStatus.REJECTED: "REJECTED"}.get(
            self.status, "NOT verified")
        lines = [f"## Quality gates ({title})", f"Required because {'; '.join(self.reasons)}."]
        for verdict in self.verdicts:
            name, word = verdict.name, verdict.verdict.replace("_", " ")
            label = {"review": "Review", "qa": "QA", "test": "Tests"}.get(name, name)
            if name == "qa" and self.checks:
                lines.append(f"- {label}: {word}")
                lines += [f"  - {c.render()}" for c in self.checks]
                lines += [f"  - {e}" for e in verdict.evidence if e.startswith("blocker: ")
                          or e in ("QA rejected the delivery", "no check was run")]
            else:
                lines.append(f"- {label}: {word}"
                             + (f" ({'; '.join(verdict.evidence)})" if verdict.evidence else ""))
        if self.fix_rounds:
            lines.append(f"- Review findings went back to the code agent "
                         f"{self.fix_rounds} time(s), then re-reviewed.")
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "required": self.required, "reasons": self.reasons, "files": self.files,
            "passed": self.passed, "status": self.status, "fix_rounds": self.fix_rounds,
            "ran": self.ran, "gates": self.gates(),
            "review": self.review.model_dump(mode="json") if self.review else None,
            "qa": self.qa.model_dump(mode="json") if self.qa else None, "notes": self.notes,
        }

    def gates(self) -> list[dict[str, Any]]:
        """The verdicts for scripts: [{name, verdict, evidence}]."""
        return [v.to_dict() for v in self.verdicts]
