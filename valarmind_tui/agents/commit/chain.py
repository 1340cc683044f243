"""The commit chain (seed 002): check → confirm → message → commit (→ push).

- **check** runs the project's detected lint, type-check and test commands
  (context.project_commands.detect_commands) one after the other through `run_check` (the session's
  `run_shell`: the gate, the sandbox, a checkpoint). The first that fails stops the chain with
  its output's tail; one that could not run (denied, killed) stops it as *not run*. A project
  with none detected skips the step, and says so.
- **confirm** is the review agent on the staged diff (agents/review.py with `--staged`):
  CONFIRMED when it approves and no critical or major finding (its own or a static one) remains,
  else DECLINED with the findings. Without a model it does not run and the chain stops, unless
  the person passed `--no-review` (then it is *skipped*, never *passed*).
- **message**: `-m` when given; else the model's Conventional Commits message from the diff,
  or one drafted from the changed files without a model (`drafted_by` says which). An
  interactive face edits it (`MessageEditor`); closing the editor or emptying it cancels.
- **commit**: `git commit` of what is staged (commit_git: hooks only for trusted projects,
  otherwise skipped and said); **push** (`--push`) the branch to its upstream.

Nothing staged is refused before any step (`--all` stages the changes to tracked files first).
Each step's end is a CommitStepFinished event. Statuses follow the headless exit codes:
done, rejected (a check failed or the review declined), unverified (a check or the review
could not run), failed (git failed), cancelled.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.commit.git import HOOKS_SKIPPED, Git, GitError, StagedFile
from valarmind_tui.agents.commit.message import files_message, model_message
from valarmind_tui.context.project_commands import detect_commands
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import UsageError, ValarMindError
from valarmind_tui.core.events import CommitMessageRequested, CommitStepFinished, RunStatus

if TYPE_CHECKING:
    from valarmind_tui.agents.review.report import ReviewReport
    from valarmind_tui.providers.base import Provider
    from valarmind_tui.safety.sandbox.wrap import Sandbox
    from valarmind_tui.settings.config import Settings
    from valarmind_tui.tools.base import ToolResult

CHECK_KINDS = ("lint", "typecheck", "test")
TAIL_LINES, TAIL_CHARS = 40, 4000
STOPS = ("failed", "not_run", "cancelled")
REJECTING_STEPS = ("check", "confirm")
"""Steps whose failure rejects the change (a check or the confirmation said no)."""
RunCheck = Callable[[str], Awaitable["ToolResult"]]


@dataclass(frozen=True)
class CommitOptions:
    push: bool = False
    review: bool = True
    """False with --no-review: commit without the review (the step says *skipped*)."""
    stage_all: bool = False
    """--all: stage every change to tracked files first."""
    message: str | None = None
    """-m: the person's message; not generated, not edited."""


@dataclass
class ChainDeps:
    root: Path
    run_check: RunCheck
    bus: EventBus
    trusted: bool
    """Whether the project is trusted: its git hooks run only then."""
    provider: Provider | None = None
    model: str | None = None
    settings: Settings | None = None
    sandbox: Sandbox | None = None
    editor: MessageEditor | None = None
    """Set by interactive faces: the person edits the message before the commit."""


@dataclass
class StepResult:
    step: str
    outcome: str
    exit_code: int | None = None
    detail: str = ""
    output: str = ""
    """The failing command's output tail, or the review's findings."""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class CommitOutcome:
    steps: list[StepResult] = field(default_factory=list)
    commit: str | None = None
    message: str | None = None
    drafted_by: str | None = None
    """person (-m), model, or files (drafted without a model)."""

    @property
    def status(self) -> RunStatus:
        for step in self.steps:
            if step.outcome == "not_run":
                return RunStatus.UNVERIFIED
            if step.outcome == "cancelled":
                return RunStatus.CANCELLED
            if step.outcome == "failed":
                return (RunStatus.REJECTED if step.step in REJECTING_STEPS
                        else RunStatus.FAILED)
        return RunStatus.DONE

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "commit": self.commit, "message": self.message,
                "drafted_by": self.drafted_by, "steps": [asdict(s) for s in self.steps]}

    def render(self) -> str:
        """Markdown for the faces: one line per step, then what stopped the chain."""
        status = self.status
        title = status.upper()
        if status == RunStatus.DONE:
            title = f"committed {self.commit}" if self.commit else "done"
        lines = [f"## Commit ({title})"]
        for s in self.steps:
            code = f", exit {s.exit_code}" if s.exit_code is not None else ""
            lines.append(f"- {s.step}: {s.outcome.replace('_', ' ')}{code}"
                         + (f" ({s.detail})" if s.detail else ""))
        last = self.steps[-1] if self.steps else None
        if last is not None and last.outcome in STOPS and last.output:
            lines.append(f"\n```\n{last.output}\n```")
        if self.message and status == RunStatus.DONE:
            lines.append(f"\n```\n{self.message}\n```")
        return "\n".join(lines)


class MessageEditor:
    """Asks an interactive face to edit the message (CommitMessageRequested) and waits for
    `answer`; faces that can edit set `interactive`."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self.interactive = False
        self._pending: dict[str, asyncio.Future[str | None]] = {}

    async def edit(self, message: str, drafted_by: str) -> str | None:
        request_id = uuid.uuid4().hex
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        # why the ignore below: drafted_by is one of the Literal's values
        self._bus.publish(CommitMessageRequested(request_id=request_id, message=message,
                                                 drafted_by=drafted_by))  # type: ignore[arg-type]  # why: above
        try:
            return await future
        finally:
            self._pending.pop(request_id, None)

    def answer(self, request_id: str, message: str | None) -> bool:
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(message)
        return True


async def run_commit_chain(deps: ChainDeps, options: CommitOptions) -> CommitOutcome:
    """Run the chain; UsageError when there is nothing to commit or no repository."""
    git = Git(deps.root, trusted=deps.trusted)
    try:
        if options.stage_all:
            staged = await git.stage_tracked()
            if staged.returncode != 0:
                raise UsageError(f"git add --update failed: {staged.stderr.strip()}")
        files = await git.staged()
    except GitError as exc:
        raise UsageError(str(exc)) from None
    if not files:
        raise UsageError("nothing staged: stage changes with `git add`, or pass --all to commit "
                         "every change to tracked files")
    return await _Chain(deps, options, git, files).run()


class _Chain:
    def __init__(self, deps: ChainDeps, options: CommitOptions, git: Git,
                 files: list[StagedFile]) -> None:
        self.deps, self.options, self.git, self.files = deps, options, git, files
        self.outcome = CommitOutcome()
        self.diff: str | None = None

    async def run(self) -> CommitOutcome:
        steps = [self.check, self.confirm, self.message, self.commit]
        if self.options.push:
            steps.append(self.push)
        for step in steps:
            result = await step()
            self.outcome.steps.append(result)
            self.deps.bus.publish(CommitStepFinished(
                # why the ignore below: the step's outcome is the Literal's value
                step=result.step, outcome=result.outcome,  # type: ignore[arg-type]  # why: above
                exit_code=result.exit_code, detail=result.detail))
            if result.outcome in STOPS:
                break
        return self.outcome

    async def check(self) -> StepResult:
        commands = [c.command for c in detect_commands(self.deps.root) if c.kind in CHECK_KINDS]
        if not commands:
            return StepResult("check", "skipped", detail="no lint, type-check or test command "
                                                         "was detected")
        ran: list[dict[str, Any]] = []
        for command in commands:
            result = await self.deps.run_check(command)
            data = result.data if isinstance(result.data, dict) else {}
            code = data.get("exit_code")
            ran.append({"command": command, "exit_code": code})
            info = {"commands": ran}
            if not isinstance(code, int):
                return StepResult("check", "not_run", None, f"`{command}` did not run",
                                  tail(result.output), info)
            if code != 0:
                return StepResult("check", "failed", code, f"`{command}` exited {code}",
                                  tail(result.output), info)
        return StepResult("check", "passed", 0, ", ".join(f"`{c}`" for c in commands),
                          data={"commands": ran})

    async def confirm(self) -> StepResult:
        if not self.options.review:
            return StepResult("confirm", "skipped", detail="--no-review: the change was not "
                                                           "reviewed")
        if self.deps.provider is None:
            return StepResult("confirm", "not_run", detail=(
                "no model is configured, so the review could not run; configure one, or pass "
                "--no-review to commit without a review"))
        from valarmind_tui.agents.review.runner import run_review

        report = await run_review(self.deps.root, ["--staged"], provider=self.deps.provider,
                                  settings=self.deps.settings, bus=self.deps.bus,
                                  sandbox=self.deps.sandbox)
        self.diff = report.diff
        return review_step(report)

    async def message(self) -> StepResult:
        if self.options.message is not None:
            text, drafted_by, note = self.options.message.strip(), "person", "given with -m"
        else:
            text, drafted_by, note = await self._draft()
            if self.deps.editor is not None:
                edited = await self.deps.editor.edit(text, drafted_by)
                if edited is None or not edited.strip():
                    return StepResult("message", "cancelled", detail="the message editor was "
                                                                     "closed or emptied")
                if edited.strip() != text:
                    note += ", edited by you"
                text = edited.strip()
        if not text:
            return StepResult("message", "failed", detail="the message is empty")
        self.outcome.message, self.outcome.drafted_by = text, drafted_by
        return StepResult("message", "passed", 0, note, data={"drafted_by": drafted_by})

    async def _draft(self) -> tuple[str, str, str]:
        """(message, drafted_by, note): the model's, or one from the files."""
        why = "no model is configured"
        if self.deps.provider is not None:
            try:
                written = await model_message(self.deps.provider, self.deps.model,
                                              await self._diff())
            except ValarMindError as exc:
                written, why = None, f"the model failed: {exc}"
            else:
                why = "the model's answer was not a conventional commit"
            if written is not None:
                return written, "model", "written by the model from the diff"
        return (files_message(self.files), "files",
                f"drafted from the changed files without a model ({why})")

    async def _diff(self) -> str:
        """The staged diff as the review saw it: sensitive files left out, secrets scrubbed."""
        if self.diff is None:
            from valarmind_tui.agents.review import checks
            from valarmind_tui.agents.review.diff import gather_diff

            change = await gather_diff(self.deps.root, ["--staged"])
            _, values = await asyncio.to_thread(checks.secret_findings, self.deps.root,
                                                change.files, checks.added_lines(change.diff))
            self.diff = checks.scrub(change.diff, values)
        return self.diff

    async def commit(self) -> StepResult:
        assert self.outcome.message is not None
        try:
            result = await self.git.commit(self.outcome.message)
        except GitError as exc:
            return StepResult("commit", "failed", None, str(exc))
        skipped = "" if self.deps.trusted else f"; {HOOKS_SKIPPED}"
        if result.returncode != 0:
            said = "\n".join(t for t in (result.stdout, result.stderr) if t.strip())
            return StepResult("commit", "failed", result.returncode,
                              f"git commit failed{skipped}", tail(said))
        self.outcome.commit = await self.git.head()
        hooks = "its hooks ran" if self.deps.trusted else HOOKS_SKIPPED
        return StepResult("commit", "passed", 0, f"{self.outcome.commit}; {hooks}",
                          data={"hooks_run": self.deps.trusted})

    async def push(self) -> StepResult:
        try:
            target, result = await self.git.push()
        except GitError as exc:
            return StepResult("push", "failed", None, str(exc))
        if result.returncode != 0:
            said = "\n".join(t for t in (result.stdout, result.stderr) if t.strip())
            return StepResult("push", "failed", result.returncode, f"git push to {target} failed",
                              tail(said))
        return StepResult("push", "passed", 0, f"pushed to {target}")


def review_step(report: ReviewReport) -> StepResult:
    """CONFIRMED or DECLINED from a review report; not run when no verdict came back."""
    result = report.result
    if not report.model_ran or result is None:
        why = "; ".join(report.notes) or "the review agent gave no verdict"
        return StepResult("confirm", "not_run", detail=why)
    from valarmind_tui.agents.results import BLOCKING  # pydantic models: loaded with a review

    blocking = [f for f in report.findings if f.severity in BLOCKING]
    findings = [f"[{f.severity}] {f.file}{f':{f.line}' if f.line else ''} {f.message}"
                for f in report.findings]
    info: dict[str, Any] = {"verdict": "CONFIRMED", "findings": findings}
    if result.approved and not blocking:
        return StepResult("confirm", "passed", 0,
                          f"CONFIRMED; {len(findings)} finding(s), none blocking",
                          "\n".join(findings), info)
    info["verdict"] = "DECLINED"
    reasons = [f"{len(blocking)} blocking finding(s)"] if blocking else []
    if not result.approved:
        reasons.append("the reviewer did not approve"
                       + (f": {result.summary}" if result.summary else ""))
    return StepResult("confirm", "failed", 1, "DECLINED: " + "; ".join(reasons),
                      "\n".join(findings) or result.summary, info)


def tail(text: str) -> str:
    """The last lines of a command's output, where a failure is usually said."""
    lines = text.rstrip().splitlines()[-TAIL_LINES:]
    return "\n".join(lines)[-TAIL_CHARS:]
