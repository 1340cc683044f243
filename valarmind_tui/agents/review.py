"""/review [target]: the change's diff, linters' findings on the changed files, and (with a
model) the review agent's findings, as one ReviewReport.

Targets: nothing (working tree against HEAD, untracked files included), `--staged`, a ref range
`main..HEAD`, a ref (`main`), or file paths.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.delegate import Delegator
from valarmind_tui.agents.results import ReviewFinding, ReviewResult, result_dict
from valarmind_tui.bus import EventBus
from valarmind_tui.config import Settings
from valarmind_tui.errors import UsageError
from valarmind_tui.providers.base import Provider
from valarmind_tui.tools.common import child_env
from valarmind_tui.tools.git import SAFE_FLAGS, safe_git_env

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox import Sandbox

MAX_DIFF_CHARS = 60_000
TOOL_TIMEOUT_S = 60.0
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
    bus: EventBus | None = None, sandbox: Sandbox | None = None,
) -> ReviewReport:
    """Gather the diff, run linters on the changed files, then the review agent when a model is
    available (a `delegator`, or a `provider` for a private read-only one). The linters (a
    project's own `node_modules/.bin/eslint`...) run in `sandbox`."""
    root = Path(root).resolve()
    args = target.split() if isinstance(target, str) else list(target or [])
    label, diff, files = await gather_diff(root, args)
    report = ReviewReport(label, files, diff)
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


# -- the diff ----------------------------------------------------------------------------
async def gather_diff(root: Path, args: list[str]) -> tuple[str, str, list[str]]:
    """(label, unified diff, changed files) for a /review target."""
    staged = any(a in ("--staged", "--cached") for a in args)
    rest = [a for a in args if a not in ("--staged", "--cached")]
    if not await _is_git(root):
        if not rest:
            raise UsageError(f"{root} is not a git repository: name the files to review")
        return "files " + " ".join(rest), "", _existing(root, rest)
    if staged:
        return "the staged changes", *(await _diff(root, ["--cached"], rest))
    refs = [a for a in rest if ".." in a or (not (root / a).exists() and await _is_ref(root, a))]
    paths = [a for a in rest if a not in refs]
    if refs:
        label = refs[0] if ".." in refs[0] else f"changes since {refs[0]}"
        return label, *(await _diff(root, [refs[0]], paths))
    diff, files = await _diff(root, ["HEAD"], paths)
    untracked = (await _git(root, ["ls-files", "--others", "--exclude-standard", "--", *paths]))
    for name in untracked.splitlines():
        if name and name not in files:
            files.append(name)
            diff += await _git(root, ["diff", "--no-index", "--", "/dev/null", name], check=False)
    if paths and not files:
        return "files " + " ".join(paths), "", _existing(root, paths)
    label = "files " + " ".join(paths) if paths else "the working tree"
    return label, diff, files


async def _diff(root: Path, spec: list[str], paths: list[str]) -> tuple[str, list[str]]:
    pathspec = ["--", *paths] if paths else []
    names = await _git(root, ["diff", "--name-only", "--diff-filter=d", *spec, *pathspec])
    diff = await _git(root, ["diff", "--no-ext-diff", "--no-color", *spec, *pathspec])
    return diff, [n for n in names.splitlines() if n]


def _existing(root: Path, paths: list[str]) -> list[str]:
    missing = [p for p in paths if not (root / p).is_file()]
    if missing:
        raise UsageError(f"not a file in the project: {', '.join(missing)}")
    return paths


async def _is_git(root: Path) -> bool:
    out = await _git(root, ["rev-parse", "--is-inside-work-tree"], check=False)
    return out.strip() == "true"


async def _is_ref(root: Path, name: str) -> bool:
    out = await _git(root, ["rev-parse", "--verify", "--quiet", name + "^{commit}"], check=False)
    return bool(out.strip())


async def _git(root: Path, args: list[str], *, check: bool = True) -> str:
    code, out, err = await _run(["git", *SAFE_FLAGS, *args], root, env=await safe_git_env(root))
    if check and code != 0:
        raise UsageError(f"git {args[0]} failed: {err.strip() or out.strip()}")
    return out


async def _run(cmd: list[str], cwd: Path, *, sandbox: Sandbox | None = None,
               env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`cmd` with the allowlisted environment (no API keys), in `sandbox` when given."""
    env = env if env is not None else child_env(cwd)
    argv = sandbox.wrap(cmd, cwd, env=env) if sandbox is not None else cmd
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL, env=env,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), TOOL_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return 124, "", f"{cmd[0]} took longer than {TOOL_TIMEOUT_S:.0f} s"
    except asyncio.CancelledError:
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")


# -- linters -----------------------------------------------------------------------------
async def static_findings(
    root: Path, files: list[str], sandbox: Sandbox | None = None,
) -> tuple[list[ReviewFinding], list[str]]:
    """Findings of the linters available for the changed files, and which linters ran."""
    findings: list[ReviewFinding] = []
    ran: list[str] = []
    present = [f for f in files if (root / f).is_file()]
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
                sandbox: Sandbox | None) -> list[ReviewFinding] | None:
    code, out, _ = await _run([exe, "check", "--output-format", "json", "--no-fix",
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
                  sandbox: Sandbox | None) -> list[ReviewFinding] | None:
    _, out, _ = await _run([exe, "--format", "json", "--", *files], root, sandbox=sandbox)
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
                      sandbox: Sandbox | None) -> list[ReviewFinding] | None:
    _, out, _ = await _run([exe, "-f", "json", "--", *files], root, sandbox=sandbox)
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
