"""Delegation: the orchestrator's `delegate` tool (delegate_tool.py) starts a specialist in its
own loop.

The Delegator builds a child AgentLoop from the specialist's spec (its tools, permissions,
model), publishes AgentSpawned/AgentFinished, enforces the timeout (clean cancel, status
`timeout`), bounds parallel read-only specialists, runs writers at once only on disjoint files
(claims.py: a writer is kept to the files it named), and validates the structured result (one
repair request, then the raw text, flagged). The clock (ApprovalClock) stops while one of the
specialist's calls waits for a person's approval, up to the agent's maximum timeout in wall
time: an approval left open past it is answered as denied (its dialog closes) and the open call
ends `timeout`, as does any call running when the working time runs out.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from valarmind_tui.agents.approval_clock import ApprovalClock
from valarmind_tui.agents.delegation.claims import WriteClaims, project_paths
from valarmind_tui.agents.loop import AgentLoop, AgentOutcome, LoopDeps
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.agents.results import parse_result, result_dict
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.agents.time_limit import bounded
from valarmind_tui.core.errors import (
    AuthError,
    DenialEscalated,
    ToolDenied,
    ToolError,
    UsageError,
    ValarMindError,
)
from valarmind_tui.core.events import AgentFinished, AgentSpawned, RunStatus
from valarmind_tui.media.images import ImageAttachment
from valarmind_tui.providers.base import Provider
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.safety.gate.approval import PermissionMode
from valarmind_tui.settings.config import Settings
from valarmind_tui.spending.metered import LedgeredProvider
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.lsp import LSP_TOOLS
from valarmind_tui.tools.services import DelegationRequest

if TYPE_CHECKING:
    from valarmind_tui.context.project_context import ContextLoader

ENDED_EARLY = (RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.ESCALATED, RunStatus.BUDGET)
"""How a specialist ends without an answer to validate (a timeout is reported on its own)."""
REPAIR = (
    "Your final answer was not a valid {kind} JSON object ({problem}). Reply again with only the "
    "JSON object, no prose and no code fence."
)


@dataclass(frozen=True)
class DelegationResult:
    """How one specialist run ended and what it returned."""

    agent: str
    agent_id: str
    status: RunStatus
    """done, incomplete, failed, cancelled, timeout or escalated (repeated denials: the
    delegate tool raises DenialEscalated so the whole prompt stops)."""
    text: str
    result: BaseModel | None = None
    """The validated structured result (SearchResult, ReviewResult...)."""
    valid: bool = False
    problem: str | None = None
    """Why the result did not validate, or why the run failed."""
    elapsed_s: float = 0.0

    @property
    def ended_early(self) -> bool:
        """It gave no answer: it failed, was cancelled or stopped, or timed out."""
        return self.status in ENDED_EARLY or self.status == RunStatus.TIMEOUT

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"agent": self.agent, "agent_id": self.agent_id,
                               "status": self.status}
        if self.result is not None:
            out["result"] = result_dict(self.result)
        else:
            out["valid"] = False
            if self.problem:
                out["problem"] = self.problem
            out["raw"] = self.text
        return out

    def to_tool_result(self) -> ToolResult:
        if self.status == RunStatus.TIMEOUT:
            partial = f"\nPartial output:\n{self.text}" if self.text.strip() else ""
            return ToolResult.error(
                f"The {self.agent} agent timed out after {self.elapsed_s:.0f}s and was "
                f"cancelled.{partial}"
            )
        if self.status in ENDED_EARLY:
            return ToolResult.error(
                f"The {self.agent} agent {self.status}: {self.problem or self.text or 'no output'}"
            )
        return ToolResult(json.dumps(self.to_dict(), indent=1), data=self.to_dict())


def raise_if_escalated(results: Sequence[DelegationResult]) -> None:
    """Repeated denials inside a specialist stop the whole prompt, not just the specialist."""
    for result in results:
        if result.status == RunStatus.ESCALATED:
            raise DenialEscalated(
                f"The {result.agent} agent was stopped: {result.problem or result.text}")


class Delegator:
    """Runs specialists for a parent agent; the delegate tool reaches it as
    `ctx.services.delegator`."""

    def __init__(
        self, registry: AgentRegistry, deps: LoopDeps, *, model: str | None = None,
        settings: Settings | None = None, max_parallel: int = 3,
        system_prompt_for: Callable[[AgentSpec], str] | None = None,
        provider_for: Callable[[AgentSpec, str | None], Provider] | None = None,
    ) -> None:
        self.registry = registry
        self.deps = deps
        self.model = model
        self.settings = settings
        self.system_prompt_for = system_prompt_for
        self.provider_for = provider_for
        self._parallel = asyncio.Semaphore(max_parallel)
        self._writers = WriteClaims()
        self._ids = itertools.count(1)
        self.results: list[DelegationResult] = []
        self.on_result: Callable[[DelegationResult], None] | None = None
        self.context: ContextLoader | None = None
        """The project context for specialists' prompts (built on first use)."""
        self.images: Sequence[ImageAttachment] = ()
        """The person's prompt images (set by the orchestrator for its run): each specialist
        gets them with its task when its model reads images."""

    async def run(
        self, agent: str, task: str, context: str = "", *, parent_id: str | None = None,
        timeout_s: float | None = None, files: Sequence[str] = (),
    ) -> DelegationResult:
        """Run one specialist to completion (or timeout) and return its result. A writer waits
        until no running writer holds one of its `files` (all of them when it names none)."""
        spec = self.check(agent)
        limit = min(timeout_s or spec.timeout_s, spec.max_timeout_s)
        child_id = f"{agent}-{next(self._ids)}"
        parent = parent_id or self.deps.ctx.agent_id
        if spec.read_only:
            async with self._parallel:
                result = await self._run_child(spec, child_id, parent, task, context, limit)
        else:
            scope = project_paths(self.deps.ctx.project_root, files)
            async with self._writers.claim(scope):
                result = await self._run_child(spec, child_id, parent, task, context, limit,
                                               scope or None)
        self.results.append(result)
        if self.on_result is not None:
            self.on_result(result)
        return result

    async def delegate(
        self, requests: Sequence[DelegationRequest], parent_id: str
    ) -> ToolResult:
        """A delegate call: every agent checked first (plan mode refuses writers as a denial),
        then all run at once; repeated denials in any of them stop the whole prompt."""
        try:
            for request in requests:
                self.check(request.agent)
                project_paths(self.deps.ctx.project_root, request.files)
        except ToolDenied:
            raise  # the loop reports it as denied, not failed
        except (UsageError, ToolError) as exc:
            return ToolResult.error(str(exc))
        results = await asyncio.gather(*(
            self.run(r.agent, r.task, r.context, parent_id=parent_id, timeout_s=r.timeout_s,
                     files=r.files)
            for r in requests
        ))
        raise_if_escalated(results)
        if len(results) == 1:
            return results[0].to_tool_result()
        parts = [r.to_tool_result() for r in results]
        text = "\n\n".join(p.output for p in parts)
        return ToolResult(text, is_error=all(p.is_error for p in parts),
                          data=[r.to_dict() for r in results])

    def check(self, agent: str) -> AgentSpec:
        """The spec, if the agent exists and may run now (UsageError / ToolError otherwise)."""
        spec = self.registry.get(agent)
        get_mode = self.deps.ctx.services.get_mode
        if get_mode is not None and get_mode() == PermissionMode.PLAN and not spec.read_only:
            raise ToolDenied(f"Plan mode is on: the {agent} agent changes things and cannot run "
                            "until the plan is approved.")
        return spec

    async def run_many(
        self, requests: list[tuple[str, str, str]], *, parent_id: str | None = None
    ) -> list[DelegationResult]:
        """Several specialists at once: read-only ones share up to `max_parallel` slots, the
        others run one at a time."""
        return list(await asyncio.gather(
            *(self.run(a, t, c, parent_id=parent_id) for a, t, c in requests)
        ))

    async def _run_child(
        self, spec: AgentSpec, child_id: str, parent: str, task: str, context: str, limit: float,
        scope: frozenset[str] | None = None,
    ) -> DelegationResult:
        bus = self.deps.bus
        bus.publish(AgentSpawned(agent_id=child_id, parent_id=parent, name=spec.name, task=task))
        started = time.monotonic()
        status, summary = RunStatus.CANCELLED, ""
        clock = ApprovalClock(bus, child_id)
        try:
            try:
                loop = self._child_loop(spec, child_id, scope=scope)
            except ValarMindError as exc:  # e.g. a profile's missing API key
                result = DelegationResult(spec.name, child_id, RunStatus.FAILED, "",
                                          problem=str(exc))
                status, summary = RunStatus.FAILED, str(exc)[:300]
                return result
            hooks = self.deps.gate.hooks
            started_with = await hooks.subagent_start(child_id, spec.name) if hooks else ""
            context = "\n\n".join(part for part in (context.strip(), started_with) if part)
            message = f"{task}\n\n## Context\n{context}" if context else task
            images = self.images if self.images and await loop.sees_images() else ()
            with calls_for(delegation=child_id):
                outcome, timed_out = await bounded(
                    loop.run(message, system_prompt=self._system_prompt(spec), images=images),
                    limit, clock, max(limit, spec.max_timeout_s),
                )
            if timed_out:
                result = DelegationResult(spec.name, child_id, RunStatus.TIMEOUT, outcome.text,
                                          problem=f"exceeded {limit:g}s", elapsed_s=limit)
            else:
                remaining = max(1.0, limit - clock.elapsed())
                result = await self._finish(spec, child_id, loop, outcome, remaining, clock,
                                            scope)
            result = replace(result, elapsed_s=round(time.monotonic() - started, 2))
            status, summary = result.status, _summary(result)
            return result
        finally:
            clock.close()
            bus.publish(AgentFinished(agent_id=child_id, name=spec.name, status=status,
                                      summary=summary))

    async def _finish(
        self, spec: AgentSpec, child_id: str, loop: AgentLoop, outcome: AgentOutcome,
        remaining: float, clock: ApprovalClock | None = None,
        scope: frozenset[str] | None = None,
    ) -> DelegationResult:
        if outcome.status in ENDED_EARLY:
            return DelegationResult(spec.name, child_id, outcome.status, outcome.text,
                                    problem=outcome.error)
        if not spec.result or outcome.status != RunStatus.DONE:
            return DelegationResult(spec.name, child_id, outcome.status, outcome.text,
                                    valid=not spec.result)
        parsed, problem = parse_result(spec.result, outcome.text)
        if parsed is None:
            repair = self._child_loop(spec, child_id, max_turns=2, scope=scope)
            prompt = REPAIR.format(kind=spec.result, problem=problem)
            second, timed_out = await bounded(
                repair.run(prompt, history=outcome.messages), remaining, clock,
                max(remaining, spec.max_timeout_s),
            )
            if not timed_out and second.status == RunStatus.DONE:
                parsed, problem2 = parse_result(spec.result, second.text)
                if parsed is None:
                    return DelegationResult(spec.name, child_id, RunStatus.DONE, second.text,
                                            problem=problem2)
                outcome = second
            else:
                return DelegationResult(spec.name, child_id, RunStatus.DONE, outcome.text,
                                        problem=problem)
        return DelegationResult(spec.name, child_id, RunStatus.DONE, outcome.text,
                                result=parsed, valid=True)

    def _child_loop(
        self, spec: AgentSpec, child_id: str, max_turns: int | None = None,
        scope: frozenset[str] | None = None,
    ) -> AgentLoop:
        parent = self.deps
        tools = parent.tools.for_agent(spec.name, spec.tools)
        search = parent.tools.get("web_search")
        if spec.permissions.web and search is not None:  # a spec that grants web may search
            tools.register(search)
        if not spec.permissions.spawn:
            tools.unregister("delegate")
        services = parent.ctx.services.for_specialist(self if spec.permissions.spawn else None)
        if scope:
            services = replace(services, write_scope=scope)
        if services.lsp is None:
            for name in LSP_TOOLS:
                tools.unregister(name)
        ctx = ToolContext(project_root=parent.ctx.project_root, agent_id=child_id,
                          cancel_event=parent.ctx.cancel_event, services=services,
                          sandbox=parent.ctx.sandbox)
        model = self.model_for(spec)
        provider = parent.provider
        if spec.api_base or spec.api_key_env:
            provider = (self.provider_for or profile_provider)(spec, model)
            if isinstance(parent.provider, LedgeredProvider):  # its own endpoint, same ledger
                provider = LedgeredProvider(provider, parent.provider.spending)
        deps = LoopDeps(provider=provider, tools=tools, gate=parent.gate, bus=parent.bus, ctx=ctx,
                        totals=parent.totals, vision=parent.vision)
        return AgentLoop(spec, deps, agent_id=child_id, model=model, max_turns=max_turns,
                         stop_event="SubagentStop")

    def model_for(self, spec: AgentSpec) -> str | None:
        """Per-agent config, then the spec's alias (when configured) or model, else the
        session's model; OpenRouter models get the spec's suffix (`:online`)."""
        settings = self.settings
        if settings is not None:
            model = settings.model_for_agent(spec.name, spec.model)
        else:
            model = spec.model if spec.model and "/" in spec.model else None
        model = model or self.model or self.deps.provider.model
        suffix = spec.model_suffix
        if suffix and model and model.startswith("openrouter/") and not model.endswith(suffix):
            model += suffix
        return model

    def _system_prompt(self, spec: AgentSpec) -> str:
        """The spec's prompt with the project context (VALARMIND.md...) unless the spec
        excludes it (the init agent)."""
        if self.system_prompt_for is not None:
            return self.system_prompt_for(spec)
        from valarmind_tui.context.project_context import ContextLoader
        from valarmind_tui.context.prompt_builder import build_agent_prompt

        root = self.deps.ctx.project_root
        if self.context is None:
            self.context = ContextLoader(root)
        built = build_agent_prompt(spec, project_context=self.context.load().text)
        return f"{built.text}\n\nProject root: {root}"


def profile_provider(spec: AgentSpec, model: str | None) -> Provider:
    """A provider for a runner profile with its own endpoint and key (seed 000)."""
    import os

    from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

    key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    if spec.api_key_env and not key:
        raise AuthError(f"no API key for the {spec.name} agent: set {spec.api_key_env}",
                        env_var=spec.api_key_env)
    return LiteLLMProvider(ProviderConfig(model=model or "", api_base=spec.api_base,
                                          api_key_env=spec.api_key_env, api_key=key))


def _summary(result: DelegationResult) -> str:
    if result.result is not None:
        summary = getattr(result.result, "summary", "")
        if summary:
            return str(summary)[:300]
    return (result.problem or result.text or "")[:300]
