"""/review [target]: the change's diff, linters' findings on the changed files, and (with a
model) the review agent's findings, as one ReviewReport.

Targets: nothing (working tree against HEAD, untracked files included), `--staged`, a ref range
`main..HEAD`, a ref (`main`), or file paths.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.delegate import Delegator
from valarmind_tui.agents.results import ReviewFinding, ReviewResult, result_dict
from valarmind_tui.agents.review_diff import gather_diff, run_command
from valarmind_tui.bus import EventBus
from valarmind_tui.config import Settings
from valarmind_tui.providers.base import Provider
from valarmind_tui.safety.content import holds_secrets

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox import Sandbox

MAX_DIFF_CHARS = 60_000
_SEVERITY_ORDER = {"critical": 0, "major": 1, "minor": 2, "info": 3}


@dataclass
class ReviewReport:
    """Findings on a change: static (linters) and, when a model ran, the review agent's."""

    target: str
    files: list[str]
    diff: str
    findings: list[ReviewFinding] = field(default_factory=list)
    result: ReviewResult | None = None
    model_ran: bool = False
    linters: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "files": self.files, "model_ran": self.model_ran,
            "linters": self.linters, "notes": self.notes,
            "findings": [result_dict(f) for f in self.findings],
            "summary": self.result.summary if self.result else None,
            "approved": self.result.approved if self.result else None,
        }

    def to_markdown(self) -> str:
        lines = [f"Review of {self.target}: {len(self.files)} file(s), "
                 f"{len(self.findings)} finding(s)."]
        if self.findings:
            lines += ["", "| severity | location | message | category | fix | source |",
                      "|---|---|---|---|---|---|"]
            for f in self.findings:
                where = f"{f.file}:{f.line}" if f.line else f.file
                lines.append(f"| {f.severity} | {where} | {_cell(f.message)} | {f.category} | "
                             f"{_cell(f.suggested_fix or '')} | {f.source} |")
        if self.result is not None and self.result.summary:
            lines += ["", self.result.summary]
        lines += [f"\n_{note}_" for note in self.notes]
        return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


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
    label, diff, files, left_out = await gather_diff(root, args, paths)
    report = ReviewReport(label, files, diff)
    if left_out:
        report.notes.append(f"Content of {', '.join(left_out)} left out: the file(s) may hold "
                            "secrets.")
    if not files:
        report.notes.append("Nothing to review: no changes found.")
        return report
    report.findings, report.linters = await static_findings(root, files, sandbox)
    if not report.linters:
        report.notes.append("No linter was found for the changed files.")
    if delegator is None and provider is not None:
        delegator = _private_delegator(root, provider, settings, bus, sandbox)
    if delegator is None:
        report.notes.append("No model is configured, so the model review was skipped; "
                            "only the linters' findings are shown.")
    else:
        await _model_review(report, delegator)
    report.findings.sort(key=lambda f: (_SEVERITY_ORDER.get(f.severity, 9), f.file, f.line or 0))
    return report


async def _model_review(report: ReviewReport, delegator: Delegator) -> None:
    static = "\n".join(f"- {f.file}:{f.line} {f.message} ({f.source})" for f in report.findings)
    diff = report.diff
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + "\n[diff truncated; read the files for the rest]"
    task = (f"Review {report.target}. Changed files: {', '.join(report.files)}.\n\n"
            + (f"Linters already reported (do not repeat them):\n{static}\n\n" if static else "")
            + (f"```diff\n{diff}\n```" if diff else "Review the files as they are."))
    outcome = await delegator.run("review", task)
    report.model_ran = True
    if isinstance(outcome.result, ReviewResult):
        report.result = outcome.result
        report.findings += [f.model_copy(update={"source": "model"})
                            for f in outcome.result.findings]
    else:
        why = outcome.problem or outcome.status
        report.notes.append(f"The review agent did not return valid findings ({why}).")
        if outcome.text.strip():
            report.notes.append("Its answer: " + outcome.text.strip()[:2000])


def _private_delegator(
    root: Path, provider: Provider, settings: Settings | None, bus: EventBus | None,
    sandbox: Sandbox | None = None,
) -> Delegator:
    """A read-only stack for a review outside a session (plan mode: nothing can change)."""
    from valarmind_tui.agents.loop import LoopDeps
    from valarmind_tui.agents.registry import AgentRegistry
    from valarmind_tui.safety.approval import PermissionMode, PolicyApprover
    from valarmind_tui.safety.gate import PermissionGate
    from valarmind_tui.tools.base import ToolContext
    from valarmind_tui.tools.builtin import builtin_tools

    bus = bus or EventBus()
    gate = PermissionGate(root, PolicyApprover(), mode=PermissionMode.PLAN, bus=bus)
    deps = LoopDeps(provider=provider, tools=builtin_tools(sandbox), gate=gate, bus=bus,
                    ctx=ToolContext(project_root=root, sandbox=sandbox))
    registry = AgentRegistry.load(root, settings)
    return Delegator(registry, deps, model=provider.model, settings=settings)


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
    code, out, _ = await run_command([exe, "check", "--output-format", "json", "--no-fix",
                               "--exit-zero", "--", *files], root, sandbox=sandbox)
    try:
        rows = json.loads(out or "[]")
    except ValueError:
        return None
    found = []
    for row in rows:
        rule = row.get("code") or "syntax"
        severity = ("critical" if rule in ("syntax", "E999") or rule.startswith("E9")
                    else "major" if re.match(r"F(821|822|823|811|632|7)", rule) else "minor")
        fix = (row.get("fix") or {}).get("message")
        found.append(ReviewFinding(
            severity=severity, file=_rel(root, row.get("filename", "")),
            line=(row.get("location") or {}).get("row"), message=f"{rule} {row.get('message')}",
            category="lint", suggested_fix=fix, source="ruff",
        ))
    return found


async def _eslint(root: Path, exe: str, files: list[str],
                 sandbox: Sandbox | None = None) -> list[ReviewFinding] | None:
    _, out, _ = await run_command([exe, "--format", "json", "--", *files], root, sandbox=sandbox)
    try:
        reports = json.loads(out or "[]")
    except ValueError:
        return None
    return [
        ReviewFinding(severity="major" if m.get("severity") == 2 else "minor",
                      file=_rel(root, r.get("filePath", "")), line=m.get("line"),
                      message=f"{m.get('ruleId') or 'eslint'} {m.get('message')}",
                      category="lint", source="eslint")
        for r in reports for m in r.get("messages", [])
    ]


async def _shellcheck(root: Path, exe: str, files: list[str],
                     sandbox: Sandbox | None = None) -> list[ReviewFinding] | None:
    _, out, _ = await run_command([exe, "-f", "json", "--", *files], root, sandbox=sandbox)
    try:
        rows = json.loads(out or "[]")
    except ValueError:
        return None
    levels = {"error": "major", "warning": "minor"}
    return [
        ReviewFinding(severity=levels.get(r.get("level"), "info"), file=r.get("file", ""),  # type: ignore[arg-type]
                      line=r.get("line"), message=f"SC{r.get('code')} {r.get('message')}",
                      category="lint", source="shellcheck")
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
