"""A review's report: its findings, for people (Markdown grouped by severity) and machines
(SARIF 2.1.0), and the `--fail-on` decision.

Findings never hold a secret's value (review_checks keeps only its kind and length), so every
output can be printed or uploaded as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from valarmind_tui import __version__
from valarmind_tui.agents.results import ReviewFinding, ReviewResult, result_dict

SEVERITIES = ("critical", "major", "minor", "info")
SEVERITY_ORDER = {s: i for i, s in enumerate(SEVERITIES)}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"critical": "error", "major": "error", "minor": "warning", "info": "note"}


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
    secret_values: list[str] = field(default_factory=list, repr=False)
    """Secrets found in the change, only to scrub them from what is shown; never output."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "files": self.files, "model_ran": self.model_ran,
            "linters": self.linters, "notes": self.notes,
            "findings": [result_dict(f) for f in self.findings],
            "summary": self.result.summary if self.result else None,
            "approved": self.result.approved if self.result else None,
        }

    def to_markdown(self) -> str:
        return markdown(self)



def fails(findings: list[ReviewFinding], threshold: str) -> bool:
    """Is any finding at `threshold` or worse?"""
    limit = SEVERITY_ORDER[threshold]
    return any(SEVERITY_ORDER.get(f.severity, 9) <= limit for f in findings)


def where(f: ReviewFinding) -> str:
    return f"{f.file}:{f.line}" if f.line else f.file


def markdown(report: ReviewReport) -> str:
    counts = ", ".join(f"{n} {s}" for s in SEVERITIES
                       if (n := sum(f.severity == s for f in report.findings)))
    lines = [f"Review of {report.target}: {len(report.files)} file(s), "
             f"{len(report.findings)} finding(s)" + (f" ({counts})." if counts else ".")]
    for severity in SEVERITIES:
        group = [f for f in report.findings if f.severity == severity]
        if not group:
            continue
        lines += ["", f"### {severity} ({len(group)})", ""]
        for f in group:
            rule = f" `{f.rule}`" if f.rule else ""
            tail = f"{f.source}" + (f", confidence {f.confidence:.1f}"
                                    if f.confidence is not None else "")
            lines.append(f"- **{where(f)}**{rule} {_one_line(f.message)} _({f.category}; "
                         f"{tail})_")
            if f.suggested_fix:
                lines.append(f"  - fix: {_one_line(f.suggested_fix)}")
    if report.result is not None and report.result.summary:
        lines += ["", report.result.summary]
    lines += [f"\n_{note}_" for note in report.notes]
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def sarif(report: ReviewReport) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log: one run, one rule per rule id, one result per
    finding (its callers as related locations)."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in report.findings:
        rule_id = f.rule or f.source
        if rule_id not in rules:
            rules[rule_id] = {
                "id": rule_id,
                "shortDescription": {"text": f"{f.category} ({f.source})"},
                "properties": {"category": f.category, "source": f.source},
            }
        text = f.message + (f" Fix: {f.suggested_fix}" if f.suggested_fix else "")
        result: dict[str, Any] = {
            "ruleId": rule_id,
            "level": _SARIF_LEVEL.get(f.severity, "note"),
            "message": {"text": text},
            "locations": [_location(f.file, f.line)],
            "properties": {"severity": f.severity, "category": f.category,
                           "source": f.source, "confidence": f.confidence},
        }
        related = [_related(i, place) for i, place in enumerate(f.related)]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    return {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{
            "tool": {"driver": {
                "name": "valarmind-review", "version": __version__,
                "rules": list(rules.values()),
            }},
            "results": results,
            "properties": {"target": report.target, "files": report.files,
                           "modelRan": report.model_ran},
        }],
    }


def _location(file: str, line: int | None) -> dict[str, Any]:
    return {"physicalLocation": {
        "artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": max(line or 1, 1)},
    }}


def _related(index: int, place: str) -> dict[str, Any]:
    file, _, line = place.rpartition(":")
    if not file or not line.isdigit():
        file, line = place, "1"
    return {"id": index, **_location(file, int(line)), "message": {"text": "still references it"}}
