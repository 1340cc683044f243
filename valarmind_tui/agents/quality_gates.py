"""Quality gates (seed 001): when a change must pass review and QA before "done".

A ChangeTracker watches the bus for successful write_file/edit_file calls made by an agent and
its descendants, and records specialist results in order, so the orchestrator can tell whether
review and QA already ran after the last change.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.agents.delegate import DelegationResult
from valarmind_tui.agents.results import QAResult, ReviewResult
from valarmind_tui.bus import EventBus
from valarmind_tui.events import AgentSpawned, Event, ToolCallFinished, ToolCallStarted
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
        self._seq = itertools.count(1)
        self._remove = bus.add_listener(self._on_event)

    def close(self) -> None:
        self._remove()

    @property
    def files(self) -> list[str]:
        return list(self.changes)

    def record(self, result: DelegationResult) -> None:
        self.results.append((next(self._seq), result))

    def latest(self, agent: str) -> DelegationResult | None:
        """The agent's last finished result after the last file change, if any."""
        last_change = max(self.changes.values(), default=0)
        for seq, result in reversed(self.results):
            if result.agent == agent and seq > last_change and result.status == "done":
                return result
        return None

    def _on_event(self, event: Event) -> None:
        if isinstance(event, AgentSpawned):
            if event.parent_id in self.family:
                self.family.add(event.agent_id)
        elif isinstance(event, ToolCallStarted):
            if event.agent_id in self.family and event.name in WRITE_TOOLS:
                path = _path_of(event.arguments)
                if path:
                    self._pending[(event.agent_id, event.call_id)] = path
        elif isinstance(event, ToolCallFinished):
            path = self._pending.pop((event.agent_id, event.call_id), None)
            if path and event.status == "ok":
                self.changes.pop(path, None)
                self.changes[path] = next(self._seq)


def _path_of(arguments: dict[str, Any]) -> str | None:
    for key in ("path", "file_path", "file"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value.removeprefix("./")
    return None


@dataclass
class GateReport:
    """What the quality gates required, ran and found."""

    reasons: list[str]
    files: list[str]
    review: ReviewResult | None = None
    qa: QAResult | None = None
    fix_rounds: int = 0
    ran: list[str] = field(default_factory=list)
    """Gates the orchestrator ran itself because the model had not."""
    notes: list[str] = field(default_factory=list)

    @property
    def required(self) -> bool:
        return bool(self.reasons)

    @property
    def passed(self) -> bool:
        review_ok = self.review is not None and not self.review.blocking()
        qa_ok = self.qa is not None and self.qa.passed
        return review_ok and qa_ok

    def render(self) -> str:
        """The "Quality gates" section appended to the final answer."""
        lines = [f"## Quality gates ({'passed' if self.passed else 'NOT passed'})",
                 f"Required because {'; '.join(self.reasons)}."]
        if self.review is not None:
            blocking = self.review.blocking()
            lines.append(f"- Review: {len(self.review.findings)} finding(s), "
                         f"{len(blocking)} blocking; {self.review.summary}".rstrip("; "))
            lines += [f"  - [{f.severity}] {f.file}:{f.line or '?'} {f.message}" for f in blocking]
        else:
            lines.append("- Review: no structured result")
        if self.qa is not None:
            checks = ", ".join(f"{c.name} {'ok' if c.passed else 'FAILED'}" for c in self.qa.checks)
            blockers = "; ".join(self.qa.blockers)
            lines.append(f"- QA: {'passed' if self.qa.passed else 'rejected'}"
                         + (f" ({checks})" if checks else "")
                         + (f"; blockers: {blockers}" if blockers else ""))
        else:
            lines.append("- QA: no structured result")
        if self.fix_rounds:
            lines.append(f"- Review findings went back to the code agent "
                         f"{self.fix_rounds} time(s), then re-reviewed.")
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "required": self.required, "reasons": self.reasons, "files": self.files,
            "passed": self.passed, "fix_rounds": self.fix_rounds, "ran": self.ran,
            "review": self.review.model_dump(mode="json") if self.review else None,
            "qa": self.qa.model_dump(mode="json") if self.qa else None, "notes": self.notes,
        }
