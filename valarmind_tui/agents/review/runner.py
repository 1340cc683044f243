"""/review [target]: the change's diff, static findings (the project's linters, security
rules, secrets, what the change breaks elsewhere, risk areas, untested changes) and, with a
model, the review agent's findings, as one ReviewReport.

Targets: nothing (working tree against HEAD, untracked files included), `--staged`, a ref range
`main..HEAD`, a PR-style range `main...feature` (from their merge base), a ref (`main`), or file
paths. The review agent is told the static findings and the reference impact; its findings are
merged with them, a finding both report kept once (the static one).
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.agents.delegation.delegate import Delegator
from valarmind_tui.agents.read_only import read_only_delegator
from valarmind_tui.agents.results import ReviewFinding, ReviewResult, Severity
from valarmind_tui.agents.review import checks
from valarmind_tui.agents.review.diff import ReviewDiff, gather_diff, run_json
from valarmind_tui.agents.review.impact import change_impact
from valarmind_tui.agents.review.report import SEVERITY_ORDER, ReviewReport
from valarmind_tui.core.bus import EventBus
from valarmind_tui.providers.base import Provider
from valarmind_tui.safety.content import holds_secrets
from valarmind_tui.settings.config import Settings

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox

MAX_DIFF_CHARS = 60_000
MODEL_CONFIDENCE = 0.6


NO_MODEL_NOTE = ("No model is configured, so the model review was skipped; only the static "
                 "findings are shown.")


async def run_review(
    root: Path, target: list[str] | str | None = None, *, provider: Provider | None = None,
    delegator: Delegator | None = None, settings: Settings | None = None,
    bus: EventBus | None = None, paths: list[str] | None = None, sandbox: Sandbox | None = None,
) -> ReviewReport:
    """Gather the diff, run linters on the changed files, then the review agent when a model is
    available (a `delegator`, or a `provider` for a private read-only one).

    `target` is what follows /review (flags, refs, paths); `paths`, when given, are only paths
    and `target` then only `--staged` or refs (see review_diff). Sensitive files' content is
    left out of the diff, the report and the review agent's prompt. The linters (a project's
    own `node_modules/.bin/eslint`...) run in `sandbox` with the allowlisted environment."""
    root = Path(root).resolve()
    args = target.split() if isinstance(target, str) else list(target or [])
    change = await gather_diff(root, args, paths)
    report = ReviewReport(change.label, change.files, change.diff)
    if change.left_out:
        report.notes.append(f"Content of {', '.join(change.left_out)} left out: the file(s) "
                            "may hold secrets.")
    if not change.files and not change.deleted:
        report.notes.append("Nothing to review: no changes found.")
        return report
    await _static_review(root, change, report, sandbox)
    if delegator is None and provider is not None:
        delegator = read_only_delegator(root, provider, settings, bus, sandbox)
    if delegator is None:
        report.notes.append(NO_MODEL_NOTE)
    else:
        await _model_review(report, delegator)
    report.findings.sort(key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), f.file, f.line or 0))
    return report


async def add_model_review(report: ReviewReport, delegator: Delegator) -> None:
    """The review agent's findings added to a report that run_review made without a model
    (the MCP server gathers first, so a failing model loses none of the static data)."""
    report.notes = [n for n in report.notes if n != NO_MODEL_NOTE]
    await _model_review(report, delegator)
    report.findings.sort(key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), f.file, f.line or 0))


async def _static_review(root: Path, change: ReviewDiff, report: ReviewReport,
                         sandbox: Sandbox | None) -> None:
    """Every check that needs no model; secret values are scrubbed from the diff."""
    added = checks.added_lines(change.diff)
    (lint, report.linters), security, (secrets, values), impact = await asyncio.gather(
        static_findings(root, change.files, sandbox),
        checks.security_findings(root, change.files, added, sandbox),
        asyncio.to_thread(checks.secret_findings, root, change.files, added),
        _impact(root, change, report))
    report.secret_values = values
    if security is None:
        report.notes.append("ruff is not installed with ValarMind: the security rules were "
                            "skipped.")
    else:
        report.linters.append("ruff (security rules)")
    report.diff = checks.scrub(change.diff, values)
    lint = [f for f in lint if checks.in_change(added, f.file, f.line)]  # the change's lines
    findings = [*impact, *secrets, *(security or []), *lint,
                *checks.risk_findings(change.files, change.deleted, added),
                *checks.untested_findings(change.files, change.deleted)]
    report.findings = merge_findings([], findings)
    if not report.linters:
        report.notes.append("No linter was found for the changed files.")
    if change.base is not None and not impact and not any("not checked" in n
                                                          for n in report.notes):
        report.notes.append("No definition that other files use was removed, renamed or "
                            "re-signed.")


async def _impact(root: Path, change: ReviewDiff, report: ReviewReport) -> list[ReviewFinding]:
    try:
        return await change_impact(root, change)
    except (OSError, sqlite3.Error) as exc:  # e.g. no writable cache dir for the repo map
        report.notes.append(f"What the change breaks elsewhere was not checked: {exc}")
        return []


def merge_findings(first: list[ReviewFinding], more: list[ReviewFinding]) -> list[ReviewFinding]:
    """`first` then each of `more` that repeats none of them (see `_same`)."""
    out = list(first)
    at: dict[tuple[str, int | None], list[ReviewFinding]] = {}
    for f in out:
        at.setdefault((f.file, f.line), []).append(f)
    for f in more:
        here = at.setdefault((f.file, f.line), [])
        if not any(_same(f, g) for g in here):
            out.append(f)
            here.append(f)
    return out


def _same(a: ReviewFinding, b: ReviewFinding) -> bool:
    """Two findings on one line that say the same: one secret found by two scanners, the same
    rule twice, or a model's finding (no rule) in the same category or citing the rule."""
    if a.category == b.category == "secret":
        return True
    if a.rule and b.rule:
        return a.rule == b.rule
    ruled, other = (a, b) if a.rule else (b, a)
    if not ruled.rule:
        return a.category == b.category and a.message == b.message
    return other.category == ruled.category or ruled.rule in other.message


async def _model_review(report: ReviewReport, delegator: Delegator) -> None:
    outcome = await delegator.run("review", _review_task(report))
    report.model_ran = True
    if isinstance(outcome.result, ReviewResult):
        report.result = outcome.result
        hide = report.secret_values  # the agent may have read the file: never show a value
        model = [f.model_copy(update={
            "source": "model", "confidence": f.confidence or MODEL_CONFIDENCE,
            "message": checks.scrub(f.message, hide),
            "suggested_fix": checks.scrub(f.suggested_fix, hide) if f.suggested_fix else None,
        }) for f in outcome.result.findings]
        outcome.result.summary = checks.scrub(outcome.result.summary, hide)
        report.findings = merge_findings(report.findings, model)
    else:
        why = outcome.problem or outcome.status
        report.notes.append(f"The review agent did not return valid findings ({why}).")
        if outcome.text.strip():
            report.notes.append("Its answer: " + outcome.text.strip()[:2000])


def _review_task(report: ReviewReport) -> str:
    """The review agent's task: the change, what static checks found, and who depends on it."""
    impact = [f for f in report.findings if f.category == "impact"]
    static = [f for f in report.findings if f.category != "impact"]
    diff = report.diff
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + "\n[diff truncated; read the files for the rest]"
    parts = [f"Review {report.target}. Changed files: {', '.join(report.files)}."]
    if impact:
        parts.append("Reference impact (from the repository map; check whether these callers "
                     "really break):\n" + "\n".join(f"- {_line(f)}" for f in impact))
    else:
        parts.append("Reference impact: no definition used by other files was removed, "
                     "renamed or re-signed.")
    if static:
        parts.append("Static checks already reported (do not repeat them; say if one is "
                     "wrong):\n" + "\n".join(f"- {_line(f)}" for f in static))
    parts.append(f"```diff\n{diff}\n```" if diff else "Review the files as they are.")
    return "\n\n".join(parts)


def _line(f: ReviewFinding) -> str:
    return (f"[{f.severity}] {f.file}:{f.line or ''} {f.rule or ''} {f.message} "
            f"({f.source})").replace("  ", " ")


# -- linters -----------------------------------------------------------------------------
async def static_findings(
    root: Path, files: list[str], sandbox: Sandbox | None = None,
) -> tuple[list[ReviewFinding], list[str]]:
    """Findings of the linters available for the changed files, and which linters ran."""
    findings: list[ReviewFinding] = []
    ran: list[str] = []
    present = [f for f in files if (root / f).is_file() and not holds_secrets(root, f)]
    for name, suffixes, runner in _LINTERS:
        chosen = [f for f in present if f.endswith(suffixes)]
        exe = _find(root, name)
        if not chosen or exe is None:
            continue
        found = await runner(root, exe, chosen, sandbox)
        if found is not None:
            ran.append(name)
            findings += found
    return findings, ran


def _find(root: Path, name: str) -> str | None:
    for candidate in (root / "node_modules" / ".bin" / name, root / ".venv" / "bin" / name,
                      Path(sys.executable).parent / name):
        if candidate.is_file():
            return str(candidate)
    return shutil.which(name)


async def _ruff(root: Path, exe: str, files: list[str],
               sandbox: Sandbox | None = None) -> list[ReviewFinding] | None:
    rows = await run_json([exe, "check", "--output-format", "json", "--no-fix", "--exit-zero",
                           "--", *files], root, sandbox=sandbox)
    if rows is None:
        return None
    found = []
    for row in rows:
        rule = row.get("code") or "syntax"
        severity: Severity = ("critical" if rule in ("syntax", "E999") or rule.startswith("E9")
                    else "major" if re.match(r"F(821|822|823|811|632|7)", rule) else "minor")
        fix = (row.get("fix") or {}).get("message")
        found.append(ReviewFinding(
            severity=severity, file=_rel(root, row.get("filename", "")),
            line=(row.get("location") or {}).get("row"), message=f"{rule} {row.get('message')}",
            category="lint", suggested_fix=fix, source="static:ruff", rule=rule, confidence=0.9,
        ))
    return found


async def _eslint(root: Path, exe: str, files: list[str],
                 sandbox: Sandbox | None = None) -> list[ReviewFinding] | None:
    reports = await run_json([exe, "--format", "json", "--", *files], root, sandbox=sandbox)
    if reports is None:
        return None
    return [
        ReviewFinding(severity="major" if m.get("severity") == 2 else "minor",
                      file=_rel(root, r.get("filePath", "")), line=m.get("line"),
                      message=f"{m.get('ruleId') or 'eslint'} {m.get('message')}",
                      category="lint", source="static:eslint", rule=m.get("ruleId"),
                      confidence=0.9)
        for r in reports for m in r.get("messages", [])
    ]


async def _shellcheck(root: Path, exe: str, files: list[str],
                     sandbox: Sandbox | None = None) -> list[ReviewFinding] | None:
    rows = await run_json([exe, "-f", "json", "--", *files], root, sandbox=sandbox)
    if rows is None:
        return None
    levels = {"error": "major", "warning": "minor"}
    return [
        # why the ignore below: levels maps onto the Severity Literal
        ReviewFinding(severity=levels.get(r.get("level"), "info"), file=r.get("file", ""),  # type: ignore[arg-type]  # why: above
                      line=r.get("line"), message=f"SC{r.get('code')} {r.get('message')}",
                      category="lint", source="static:shellcheck", rule=f"SC{r.get('code')}",
                      confidence=0.9)
        for r in rows
    ]


_LINTERS = (
    ("ruff", (".py", ".pyi"), _ruff),
    ("eslint", (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"), _eslint),
    ("shellcheck", (".sh", ".bash"), _shellcheck),
)


def _rel(root: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return path
