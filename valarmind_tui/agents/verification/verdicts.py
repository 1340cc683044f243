"""Gate verdicts from evidence: what review, QA and the test agent did, not what they said.

A QA or test check counts as run only when the agent's own bash call of that command ran and
returned an exit code (ToolCallFinished.exit_code); a check that was denied, errored before
running, or never run is `not_run`, whatever the agent claimed. A specialist whose structured
result did not validate failed its gate. The prompt's status follows the verdicts:

    any gate failed → rejected;  else any gate not_run → unverified;  else done
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from valarmind_tui.agents.results import QACheck, QAResult, ReviewResult, TestResult
from valarmind_tui.core.events import RunStatus

if TYPE_CHECKING:
    from valarmind_tui.agents.delegation.delegate import DelegationResult

Verdict = Literal["passed", "failed", "not_run"]
VERDICT_WORDS = {"passed": "passed", "failed": "FAILED", "not_run": "not run"}
RAN_TO_END = (RunStatus.DONE,)


@dataclass(frozen=True)
class CommandRun:
    """One bash call an agent made, as its tool events tell it."""

    agent_id: str
    command: str
    status: str
    """The ToolCallFinished status: ok, error, denied, cancelled."""
    exit_code: int | None

    @property
    def ran(self) -> bool:
        return self.status in ("ok", "error") and self.exit_code is not None

    def describe(self) -> str:
        if self.ran:
            return f"`{self.command}` exited {self.exit_code}"
        if self.status == "denied":
            return f"`{self.command}` was denied"
        return f"`{self.command}` did not run ({self.status})"


@dataclass
class VerificationVerdict:
    """One gate's verdict and the evidence for it."""

    name: str
    verdict: Verdict
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict, "evidence": list(self.evidence)}

    def render(self) -> str:
        why = "; ".join(self.evidence)
        return f"{self.name}: {VERDICT_WORDS[self.verdict]}" + (f" ({why})" if why else "")


def prompt_status(verdicts: list[VerificationVerdict]) -> RunStatus:
    """done, rejected (a gate failed) or unverified (a gate could not run)."""
    if any(v.verdict == "failed" for v in verdicts):
        return RunStatus.REJECTED
    if any(v.verdict == "not_run" for v in verdicts):
        return RunStatus.UNVERIFIED
    return RunStatus.DONE


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def runs_of(command: str, runs: list[CommandRun]) -> list[CommandRun]:
    """The runs of `command`: the same words, or more words after them (`pytest -q tests/x.py`
    is a run of `pytest -q`)."""
    wanted = _words(command)
    if not wanted:
        return []
    return [r for r in runs if _words(r.command)[: len(wanted)] == wanted]


def _not_run_reason(command: str, matches: list[CommandRun]) -> str:
    if any(r.status == "denied" for r in matches):
        return f"`{command}` was denied"
    if matches:
        return matches[-1].describe()
    return f"`{command}` was never run"


def review_verdict(result: DelegationResult | None) -> VerificationVerdict:
    if result is None:
        return VerificationVerdict("review", "not_run", ["the review agent did not run"])
    if result.status not in RAN_TO_END:
        return VerificationVerdict("review", "not_run", [f"the review agent ended {result.status}"
                                                 + (f": {result.problem}" if result.problem
                                                    else "")])
    review = result.result
    if not isinstance(review, ReviewResult):
        return VerificationVerdict("review", "failed",
                                   [f"invalid ReviewResult: {result.problem or '?'}"])
    blocking = review.blocking()
    evidence = [f"{len(review.findings)} finding(s), {len(blocking)} blocking"]
    evidence += [f"[{f.severity}] {f.file}:{f.line or '?'} {f.message}" for f in blocking]
    if not review.approved:
        evidence.append("not approved")
    ok = review.approved and not blocking
    return VerificationVerdict("review", "passed" if ok else "failed", evidence)


def check_verdict(
    check: QACheck, runs: list[CommandRun], detected: tuple[str, ...], *, reported: bool = True
) -> VerificationVerdict:
    """One QA check against the QA agent's own runs (`reported`: QA named it, so its claim is
    quoted; a detected command QA left out is checked the same way, with no claim)."""
    command = check.command or _detected_for(check.name, detected)
    name = check.name
    if not command:
        return VerificationVerdict(name, "not_run", ["no command was given for the check"])
    matches = runs_of(command, runs)
    ran = [r for r in matches if r.ran]
    if not ran:
        claim = " (QA reported it passed)" if check.passed and reported else ""
        return VerificationVerdict(name, "not_run", [_not_run_reason(command, matches) + claim])
    last = ran[-1]
    if last.exit_code != 0:
        return VerificationVerdict(name, "failed", [last.describe()])
    if not check.passed:
        return VerificationVerdict(name, "failed", [f"{last.describe()}; QA reported it failed"])
    return VerificationVerdict(name, "passed", [last.describe()])


def _detected_for(name: str, detected: tuple[str, ...]) -> str | None:
    """A check named like a detected command (`ruff`, `pytest`) without its own command."""
    for command in detected:
        words = _words(command)
        if words and name.lower() in (words[0].rsplit("/", 1)[-1].lower(), command.lower()):
            return command
    return None


def qa_verdicts(
    result: DelegationResult | None, runs: list[CommandRun], detected: tuple[str, ...]
) -> tuple[VerificationVerdict, list[VerificationVerdict]]:
    """The QA gate and its checks: every reported check, plus every detected command QA did
    not report (run by QA or not)."""
    if result is None:
        return VerificationVerdict("qa", "not_run", ["the QA agent did not run"]), []
    if result.status not in RAN_TO_END:
        why = f"the QA agent ended {result.status}" + (
            f": {result.problem}" if result.problem else "")
        return VerificationVerdict("qa", "not_run", [why]), []
    qa = result.result
    if not isinstance(qa, QAResult):
        return VerificationVerdict("qa", "failed",
                                   [f"invalid QAResult: {result.problem or '?'}"]), []
    checks = [check_verdict(c, runs, detected) for c in qa.checks]
    required = [v for c, v in zip(qa.checks, checks, strict=True) if c.required]
    reported = {c.command or _detected_for(c.name, detected) for c in qa.checks}
    for command in detected:
        if command not in reported:
            implicit = check_verdict(QACheck(name=command, command=command, passed=True),
                                     runs, detected, reported=False)
            checks.append(implicit)
            required.append(implicit)
    failed = [v for v in required if v.verdict == "failed"]
    not_run = [v for v in required if v.verdict == "not_run"]
    evidence = [v.render() for v in checks] + [f"blocker: {b}" for b in qa.blockers]
    if failed or (not qa.passed and not not_run):
        if not failed:
            evidence.append("QA rejected the delivery")
        return VerificationVerdict("qa", "failed", evidence), checks
    if not_run or not required:
        if not required:
            evidence.append("no check was run")
        return VerificationVerdict("qa", "not_run", evidence), checks
    return VerificationVerdict("qa", "passed", evidence), checks


def test_verdict(result: DelegationResult, runs: list[CommandRun]) -> VerificationVerdict:
    """The test agent's claim against the test commands it ran."""
    if result.status not in RAN_TO_END:
        return VerificationVerdict("test", "not_run", [f"the test agent ended {result.status}"])
    tests = result.result
    if not isinstance(tests, TestResult):
        return VerificationVerdict("test", "failed",
                                   [f"invalid TestResult: {result.problem or '?'}"])
    matches = runs_of(tests.command, runs) if tests.command.strip() else []
    ran = [r for r in (matches or runs) if r.ran]
    if not ran:
        why = _not_run_reason(tests.command, matches or runs)
        return VerificationVerdict("test", "not_run", [why + (" (the test agent reported it passed)"
                                                      if tests.passed else "")])
    last = ran[-1]
    evidence = [last.describe()]
    if last.exit_code != 0:
        return VerificationVerdict("test", "failed", evidence)
    if not tests.passed or tests.failed_count:
        evidence.append(f"the test agent reported {tests.failed_count} failure(s)")
        return VerificationVerdict("test", "failed", evidence)
    return VerificationVerdict("test", "passed", evidence)


test_verdict.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
