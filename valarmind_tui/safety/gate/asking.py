"""The gate's "ask" step: the tool-approve reviewer, then PermissionRequest hooks, then the
Approver (TUI modal, REPL prompt, headless policy).

A `strict` ask is one no mode answers (a protected or sensitive path, a deny rule that may
apply): a reviewer never approves it, nor a hook's `allow`, and a denial says why. A hook's own
ask (`approvable=False`) is not approved by a model either. A PermissionRequest hook's
`updatedInput` runs only when the new arguments pass what the hook could not answer (the gate
says: `Asking.vet`).

The step gets what it needs of the gate as data (`Asking`, built by the gate for each ask), not
the gate itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from valarmind_tui.core.errors import HookStopped, ToolError
from valarmind_tui.safety.gate import oversight as gate_reviews
from valarmind_tui.safety.gate.appeals import AppealBook
from valarmind_tui.safety.gate.approval import ApprovalRequest, Approver, PolicyApprover
from valarmind_tui.safety.gate.call import Call
from valarmind_tui.safety.gate.call_rules import suggested_rule
from valarmind_tui.safety.gate.denials import PERSON_AGENT_ID, DenialTally, GateDecision
from valarmind_tui.safety.gate.hook_points import GateHooks, HookVerdict, with_updated_input
from valarmind_tui.safety.gate.oversight_points import GateReviewers
from valarmind_tui.safety.gate.verdict import Verdict


@dataclass(frozen=True)
class Asking:
    """What the ask step uses of the gate, as the gate holds it now."""

    approver: Approver
    hooks: GateHooks | None
    reviewers: GateReviewers | None
    appeals: AppealBook
    denials: DenialTally
    remember: Callable[[str, bool], None]
    """(rule, for the project too): the person allowed it for the session or the project."""
    vet: Callable[[Call, Any, Any], str | None]
    """(call, new arguments, ctx): why a hook's `updatedInput` may not run, None when it may."""


async def ask_protected(asking: Asking, call: Call, params: Any, ctx: Any) -> GateDecision:
    """A write to a protected path: a strict ask, offering a rule that names the path."""
    what = ", ".join(f"{target} (protected-path rule {rule})"
                     for target, rule in call.protected)
    reason = (f"writes a protected path: {what}; repository configuration and git's files "
              "can make the next run or git execute commands")
    if call.subject.command is None and call.subject.paths:
        names = call.subject.paths
        rule = f"{call.tool.name}({names[0]})" if len(names) == 1 else ""
    else:
        rule = suggested_rule(call)
    return await ask(asking, call, params, ctx, reason, rule=rule, strict=True,
                     protected=call.protected[0][1])


async def ask(
    asking: Asking, call: Call, params: Any, ctx: Any, reason: str, *, rule: str,
    strict: bool = False, protected: str | None = None, deny_rule: str | None = None,
    approvable: bool = True,
) -> GateDecision:
    """Ask the reviewers, the PermissionRequest hooks, then the Approver; remember the rule
    when the person allows it for the session or the project."""
    try:
        preview = await call.tool.preview(params, ctx)
    except ToolError as exc:
        preview = None
        reason += f" (preview failed: {exc})"
    except Exception as exc:  # noqa: BLE001 - a broken preview must not crash the gate
        preview = None
        reason += f" (no preview: {type(exc).__name__})"
    reviewed = await _tool_approve(asking, call, params, reason, strict, approvable)
    if reviewed is not None:
        return reviewed
    answered = await _permission_hooks(asking, call, params, ctx, strict)
    if answered is not None:
        return answered
    path = call.protected[0][0] if protected else None
    request = ApprovalRequest(
        request_id=uuid.uuid4().hex[:12], agent_id=call.agent_id, tool=call.tool.name,
        summary=getattr(preview, "summary", None) or f"{call.tool.name}",
        reason=reason, diff=getattr(preview, "diff", None),
        command=getattr(preview, "command", None) or call.subject.command,
        cwd=getattr(preview, "cwd", None),
        path=path or (call.subject.paths[0] if call.subject.paths else None), rule=rule,
        protected=protected, deny_rule=deny_rule,
    )
    answer = await asking.approver.request(request)
    if not answer.allowed:
        denied = f"Not allowed: {reason}." if strict else "The person denied this call."
        return asking.denials.deny(call, denied, answer.feedback)
    if answer.decision in ("allow_session", "allow_project") and rule:
        asking.remember(rule, answer.decision == "allow_project")
    return GateDecision(True, "approved")


async def _tool_approve(
    asking: Asking, call: Call, params: Any, reason: str, strict: bool, approvable: bool
) -> GateDecision | None:
    """The tool-approve reviewer (and a pass an appeal won against it); the person's own
    commands go straight to the person."""
    if call.kind == PERSON_AGENT_ID:
        return None
    model_may_approve = _model_may_approve(asking, strict, approvable)
    if asking.appeals.use_pass(call.kind, call.tool.name, params, "reviewer"):
        if not model_may_approve:
            return None
        return GateDecision(True, "allowed on appeal (tool-appeal overturned the denial)")
    step = await gate_reviews.tool_approve(asking.reviewers, call, params, reason,
                                           approvable=model_may_approve)
    if step is None:
        return None
    if step.action is Verdict.ALLOW:
        return GateDecision(True, step.reason)
    return asking.denials.deny(call, gate_reviews.offer_appeal(
        asking.reviewers, asking.appeals, call, params, step.reason, "reviewer",
        PERSON_AGENT_ID))


def _model_may_approve(asking: Asking, strict: bool, approvable: bool) -> bool:
    """A reviewer approves only an ordinary ask that a person would answer: never a strict
    one, a hook's ask or an unconfined command, and never instead of the headless policy
    (the person's flags decide there)."""
    return approvable and not strict and not isinstance(asking.approver, PolicyApprover)


async def _permission_hooks(
    asking: Asking, call: Call, params: Any, ctx: Any, strict: bool
) -> GateDecision | None:
    """PermissionRequest hooks answer before a person is asked (an allow never answers a
    strict ask: protected, sensitive, a deny rule that may apply); Notification hooks hear
    that the person will be asked."""
    if asking.hooks is None:
        return None
    verdict = await asking.hooks.permission_request(call.tool.name, params, ctx)
    if verdict.stop is not None:
        raise HookStopped(f"Stopped by a PermissionRequest hook: {verdict.stop}")
    if verdict.decision is Verdict.DENY:
        return asking.denials.deny(call, "Denied by a PermissionRequest hook: "
                                 + (verdict.reason or "denied"))
    if verdict.decision is Verdict.ALLOW and not strict:
        if verdict.updated_input is not None:
            return _updated_by_permission_hook(asking, call, params, ctx, verdict)
        return GateDecision(True, "allowed by a PermissionRequest hook")
    asking.hooks.notify(f"ValarMind needs your permission to use {call.tool.name}",
                      "permission_prompt")
    return None


def _updated_by_permission_hook(
    asking: Asking, call: Call, params: Any, ctx: Any, verdict: HookVerdict
) -> GateDecision:
    """A PermissionRequest hook allowed with `updatedInput`: the new arguments run only when
    they pass what the hook could not answer (deny rules, permissions, paths)."""
    try:
        new = with_updated_input(call.tool, params, verdict.updated_input or {})
    except (ToolError, TypeError, ValueError) as exc:
        return asking.denials.deny(
            call, f"A PermissionRequest hook's updatedInput is not valid: {exc}")
    problem = asking.vet(call, new, ctx)
    if problem is not None:
        return asking.denials.deny(
            call, f"A PermissionRequest hook's updatedInput was refused: {problem}")
    return GateDecision(True, "allowed by a PermissionRequest hook (with updatedInput)",
                        params=new)
