"""The orchestrator: the session's main agent, plus the quality gates it may not skip.

It runs the orchestrator spec through AgentLoop with the delegate, task and plan tools; when the
run changed 2+ files or risk code and the model did not have review and QA look at the final
state, it runs them itself, sends blocking review findings to the code agent (bounded rounds),
re-reviews, runs the test agent when the project has a test command (seed 001: review → fix →
re-review → tests → QA), and appends what the gates found to the answer. The verdicts come
from evidence (gate_verdicts): the outcome is `done` only when every gate passed, `rejected`
when one failed, `unverified` when one could not run. The report is also kept in the
conversation as an assistant message, so a resumed session sees what review and QA found.

Repeated denials (DenialEscalated) stop the whole prompt wherever they happen, in the
orchestrator or inside a specialist: the outcome's status is `escalated` and its text says why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any

from valarmind_tui.agents.approval_clock import ApprovalClock
from valarmind_tui.agents.delegation.delegate import DelegationResult, Delegator, raise_if_escalated
from valarmind_tui.agents.delegation.tool import DelegateTool
from valarmind_tui.agents.loop import AgentLoop, AgentOutcome, LoopDeps
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.agents.results import QAResult, ReviewResult
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.agents.steering import SteeringQueue
from valarmind_tui.agents.tasks import DelegationFollower, TaskList
from valarmind_tui.agents.time_limit import bounded
from valarmind_tui.agents.verification.policy import (
    ChangeTracker,
    VerificationReport,
    gates_required,
)
from valarmind_tui.agents.verification.verdicts import qa_verdicts, review_verdict, test_verdict
from valarmind_tui.core.errors import DenialEscalated
from valarmind_tui.core.events import AgentFinished, AgentSpawned, Event, RunStatus
from valarmind_tui.media.images import ImageAttachment
from valarmind_tui.settings.config import Settings
from valarmind_tui.tools.planning.exit_plan_mode import ExitPlanModeTool
from valarmind_tui.tools.planning.task_tools import task_tools
from valarmind_tui.tools.registry import ToolRegistry
from valarmind_tui.tools.web.web_fetch import WebFetchTool
from valarmind_tui.tools.web.web_search import WebSearchTool

MAX_FIX_ROUNDS = 2


def agent_tools(base: ToolRegistry, registry: AgentRegistry) -> ToolRegistry:
    """The session's tools plus the agent-system tools (delegate, task_*, exit_plan_mode,
    web_fetch, web_search) when missing."""
    tools = ToolRegistry(base)
    extras = [*task_tools(), ExitPlanModeTool(), WebFetchTool(), WebSearchTool(),
              DelegateTool([s.name for s in registry.specialists()])]
    for tool in extras:
        if tool.name not in tools:
            tools.register(tool)
    return tools


class Orchestrator:
    """`await Orchestrator(deps, registry, ...).run(prompt)` for one submitted prompt."""

    def __init__(
        self, deps: LoopDeps, registry: AgentRegistry, *, model: str | None = None,
        settings: Settings | None = None, tasks: TaskList | None = None,
        max_turns: int | None = None, max_fix_rounds: int = MAX_FIX_ROUNDS,
        system_prompt_for: Callable[[AgentSpec], str] | None = None,
        steering: SteeringQueue | None = None,
    ) -> None:
        """`steering`: the person's messages typed while it runs, for its own loop."""
        self.registry = registry
        self.steering = steering
        self.spec = registry.get("orchestrator")
        self.tools = agent_tools(deps.tools, registry)
        self.model = model
        self.max_turns = max_turns
        self.max_fix_rounds = max_fix_rounds
        self.tasks = tasks if tasks is not None else TaskList(deps.bus)
        self.deps = replace(deps, tools=self.tools)
        self.delegator = Delegator(registry, self.deps, model=model, settings=settings,
                                   system_prompt_for=system_prompt_for)
        # set after the delegator is built (it is one of the services); it shares these deps
        services = replace(deps.ctx.services, tasks=self.tasks, delegator=self.delegator)
        self.deps.ctx = replace(deps.ctx, services=services)
        self.gates: VerificationReport | None = None

    @property
    def agent_id(self) -> str:
        return self.deps.ctx.agent_id

    async def run(
        self, prompt: str, *, history: list[dict[str, Any]] | None = None,
        system_prompt: str | None = None, images: Sequence[ImageAttachment] = (),
    ) -> AgentOutcome:
        """Run the orchestrator, then enforce the quality gates; the outcome's text ends with
        the gates' report when they were required. `images` go with the prompt."""
        tracker = ChangeTracker(self.deps.bus, self.agent_id)
        self.delegator.on_result = tracker.record
        self.delegator.images = images
        self.gates = None
        follower = DelegationFollower(self.tasks, [s.name for s in self.registry.specialists()])
        stop_following = self.deps.bus.add_listener(self._follow(follower))
        try:
            own = replace(self.deps, tools=self.tools.for_agent(self.spec.name, self.spec.tools))
            loop = AgentLoop(self.spec, own, agent_id=self.agent_id, model=self.model,
                             max_turns=self.max_turns, steering=self.steering)
            outcome = await self._run_bounded(
                loop.run(prompt, history=history, system_prompt=system_prompt, images=images))
            reasons = gates_required(tracker.files)
            if not reasons or outcome.status == RunStatus.ESCALATED:
                return outcome
            report = VerificationReport(reasons, tracker.files)
            self.gates = report
            if outcome.status != RunStatus.DONE:
                report.notes.append(f"Gates not run: the run ended {outcome.status}.")
                return self._reported(outcome, report, outcome.status, outcome.text)
            try:
                await self._enforce(report, tracker, prompt)
            except DenialEscalated as exc:
                report.notes.append(f"Gates stopped: {exc}")
                return self._reported(replace(outcome, error=str(exc)), report, RunStatus.ESCALATED,
                                      str(exc))
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None:
                    current.uncancel()
                report.notes.append("Gates interrupted: the run was cancelled.")
                return self._reported(outcome, report, RunStatus.CANCELLED, outcome.text)
            report.files = tracker.files
            follower.settle({v.name: v.verdict for v in report.verdicts})
            return self._reported(outcome, report, report.status, outcome.text)
        finally:
            stop_following()
            tracker.close()
            self.delegator.on_result = None
            self.delegator.images = ()

    async def _run_bounded(self, run: Coroutine[Any, Any, AgentOutcome]) -> AgentOutcome:
        """The orchestrator's own time limit (its spec's timeout, up to its maximum in wall
        time), with the clock stopped while a person reads an approval, as for specialists."""
        clock = ApprovalClock(self.deps.bus, self.agent_id)
        try:
            outcome, timed_out = await bounded(
                run, self.spec.timeout_s, clock, self.spec.max_timeout_s,
                keep_partial_on_cancel=True)
        finally:
            clock.close()
        if timed_out:
            return replace(outcome, status=RunStatus.TIMEOUT, error=(
                f"the orchestrator's time limit ({self.spec.timeout_s:g}s) ran out"))
        return outcome

    def _follow(self, follower: DelegationFollower) -> Callable[[Event], None]:
        """Tasks follow the delegations this agent makes (its own children only)."""
        children: set[str] = set()

        def on_event(event: Event) -> None:
            match event:
                case AgentSpawned() if event.parent_id == self.agent_id:
                    children.add(event.agent_id)
                    follower.started(event.name)
                case AgentFinished() if event.agent_id in children:
                    follower.ended(event.name, event.status)
                case _:
                    pass  # tasks follow this agent's own delegations only

        return on_event

    def _reported(
        self, outcome: AgentOutcome, report: VerificationReport, status: RunStatus, text: str
    ) -> AgentOutcome:
        """The outcome with the gates' report appended to its text and kept in its history."""
        rendered = report.render()
        message = {"role": "assistant", "content": rendered}
        outcome.messages.append(message)
        if self.deps.on_message is not None:
            self.deps.on_message(message)
        return replace(outcome, status=status,
                       text=f"{text}\n\n{rendered}".strip())

    async def _enforce(self, report: VerificationReport, tracker: ChangeTracker,
                       prompt: str) -> None:
        """Review (with fix rounds), then QA; each verdict from what the agents really did."""
        review = tracker.latest("review")
        if review is None:
            review = await self._delegate("review", _review_task(tracker.files), prompt)
            report.ran.append("review")
        report.review = _as(review, ReviewResult, report)
        while (report.review is not None and report.review.blocking()
               and report.fix_rounds < self.max_fix_rounds):
            report.fix_rounds += 1
            await self._delegate("code", _fix_task(report.review), prompt)
            review = await self._delegate("review", _review_task(tracker.files), prompt)
            report.ran.append("review")
            report.review = _as(review, ReviewResult, report)
        report.verdicts = [review_verdict(review)]
        tests = tracker.latest("test", finished=False)
        if tests is None and self.registry.get("test").permissions.execute_allow:
            tests = await self._delegate("test", _test_task(tracker.files), prompt)
            report.ran.append("test")
        if tests is not None:
            report.verdicts.append(test_verdict(tests, tracker.runs_by(tests.agent_id)))
        qa = tracker.latest("qa")
        if qa is None:
            qa = await self._delegate("qa", _qa_task(tracker.files), prompt)
            report.ran.append("qa")
        report.qa = _as(qa, QAResult, report)
        detected = self.registry.get("qa").permissions.execute_allow or ()
        verdict, report.checks = qa_verdicts(qa, tracker.runs_by(qa.agent_id), tuple(detected))
        report.verdicts.append(verdict)

    async def _delegate(self, agent: str, task: str, prompt: str) -> DelegationResult:
        context = f"The user's request was:\n{prompt}"
        result = await self.delegator.run(agent, task, context, parent_id=self.agent_id)
        raise_if_escalated([result])
        return result


def _as(result: DelegationResult, kind: type, report: VerificationReport) -> Any:
    if isinstance(result.result, kind):
        return result.result
    report.notes.append(
        f"The {result.agent} agent ended {result.status} without a valid result"
        + (f" ({result.problem})" if result.problem else "") + "."
    )
    return None


def _review_task(files: list[str]) -> str:
    return ("Review the current changes (quality gate). Changed files: " + ", ".join(files)
            + ". Use git_diff and read the files; report findings with file and line.")


def _fix_task(review: ReviewResult) -> str:
    rows = [f"- [{f.severity}] {f.file}:{f.line or '?'} {f.message}"
            + (f" Suggested fix: {f.suggested_fix}" if f.suggested_fix else "")
            for f in review.blocking()]
    return "Fix these review findings, changing only what they require:\n" + "\n".join(rows)


def _test_task(files: list[str]) -> str:
    return ("Run the project's tests for the current changes (quality gate) with its test "
            "command, and report the result. Changed files: " + ", ".join(files))


def _qa_task(files: list[str]) -> str:
    return ("Verify the delivery (quality gate): run the project's detected build, lint, "
            "type-check and test commands and report. Changed files: " + ", ".join(files))
