"""Reviewers: the five model reviewers behind safety.review_points.GateReviewers.

    reviewers = Reviewers.from_settings(settings, session_provider, bus)
    gate = PermissionGate(..., reviewers=reviewers)   # the gate and the agent loop ask them

Each reviewer judges against the request its agent is working on (`began`), keeps its own usage
(for /cost) and answers None when it has no verdict.
"""

from __future__ import annotations

from collections.abc import Callable

from valarmind_tui.core.bus import EventBus
from valarmind_tui.oversight import prompts
from valarmind_tui.oversight.model_call import ModelReviewer, ReviewerUsage
from valarmind_tui.providers.base import Provider
from valarmind_tui.safety.gate.oversight_points import ReviewVerdict
from valarmind_tui.settings.config import Settings
from valarmind_tui.settings.sections import ReviewersSettings

MAX_REQUEST_CHARS = 6000
MAX_TEXT_CHARS = 8000

_KINDS = {
    "tool_approve": ("tool-approve", prompts.APPROVE),
    "tool_appeal": ("tool-appeal", prompts.APPEAL),
    "intent_check": ("intent-check", prompts.INTENT),
    "plan_validate": ("plan-validate", prompts.PLAN),
    "error_acknowledge": ("error-acknowledge", prompts.ERROR),
}


def _clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit // 2] + "\n…\n" + text[-limit // 2:]


class Reviewers:
    """The configured reviewers; implements GateReviewers."""

    def __init__(self, settings: ReviewersSettings,
                 provider_for: Callable[[str | None], Provider],
                 bus: EventBus | None = None) -> None:
        self.reviewers = {
            name: ModelReviewer(label, getattr(settings, name), words,
                                provider_for=provider_for, bus=bus)
            for name, (label, words) in _KINDS.items()
        }
        self._requests: dict[str, str] = {}

    @classmethod
    def from_settings(cls, settings: Settings, session_provider: Callable[[], Provider],
                      bus: EventBus | None = None, *,
                      wrap: Callable[[Provider], Provider] = lambda p: p) -> Reviewers:
        """Reviewers without a model of their own use the session's provider; the others get
        one per model (alias or LiteLLM string), built on first use and `wrap`ped (the
        session's ledger)."""
        built: dict[str, Provider] = {}

        def provider_for(model: str | None) -> Provider:
            if model is None:
                return session_provider()
            if model not in built:
                from valarmind_tui.providers.litellm_provider import provider_from_settings

                built[model] = wrap(provider_from_settings(settings, model))
            return built[model]

        return cls(settings.reviewers, provider_for, bus)

    # -- state ---------------------------------------------------------------------------
    def enabled(self, name: str) -> bool:
        reviewer = self.reviewers.get(name)
        return reviewer is not None and reviewer.enabled

    @property
    def any_enabled(self) -> bool:
        return any(r.enabled for r in self.reviewers.values())

    def began(self, agent_id: str, request: str) -> None:
        self._requests[agent_id] = _clip(request, MAX_REQUEST_CHARS)

    def usage(self) -> dict[str, ReviewerUsage]:
        """Per reviewer label, what it spent (only reviewers that ran)."""
        return {r.label: r.usage for r in self.reviewers.values() if r.usage.calls}

    def _request(self, agent_id: str) -> str:
        return self._requests.get(agent_id, "(unknown)")

    # -- the review points ---------------------------------------------------------------
    async def approve_tool(self, agent_id: str, call: str, why_asked: str
                           ) -> ReviewVerdict | None:
        user = prompts.tagged(request=self._request(agent_id), call=_clip(call),
                              why_approval_is_needed=why_asked)
        return await self.reviewers["tool_approve"].review(prompts.TOOL_APPROVE, user, call)

    async def appeal(self, agent_id: str, call: str, denial: str, justification: str
                     ) -> ReviewVerdict | None:
        user = prompts.tagged(request=self._request(agent_id), call=_clip(call), denial=denial,
                              justification=_clip(justification))
        return await self.reviewers["tool_appeal"].review(prompts.TOOL_APPEAL, user, call)

    async def validate_plan(self, agent_id: str, plan: str) -> ReviewVerdict | None:
        user = prompts.tagged(request=self._request(agent_id), plan=_clip(plan))
        return await self.reviewers["plan_validate"].review(prompts.PLAN_VALIDATE, user,
                                                            plan[:200])

    async def check_intent(self, agent_id: str, answer: str) -> ReviewVerdict | None:
        user = prompts.tagged(request=self._request(agent_id), answer=_clip(answer))
        return await self.reviewers["intent_check"].review(prompts.INTENT_CHECK, user,
                                                           answer[:200])

    async def check_error_acknowledged(self, agent_id: str, error: str, reply: str
                                       ) -> ReviewVerdict | None:
        user = prompts.tagged(request=self._request(agent_id), error=_clip(error),
                              next_message=_clip(reply))
        return await self.reviewers["error_acknowledge"].review(prompts.ERROR_ACKNOWLEDGE,
                                                                user, error[:200])
