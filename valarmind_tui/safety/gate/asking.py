"""The gate's "ask" step: the tool-approve reviewer, then PermissionRequest hooks, then the
Approver (TUI modal, REPL prompt, headless policy).

A `strict` ask is one no mode answers (a protected or sensitive path, a deny rule that may
apply): a reviewer never approves it, nor a hook's `allow`, and a denial says why. A hook's own
ask (`approvable=False`) is not approved by a model either. A PermissionRequest hook's
`updatedInput` runs only when the new arguments pass what the hook could not answer.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Protocol

from valarmind_tui.core.errors import HookStopped, ToolError
from valarmind_tui.safety.gate import oversight as gate_reviews
from valarmind_tui.safety.gate.appeals import AppealBook
from valarmind_tui.safety.gate.approval import ApprovalRequest, Approver, PolicyApprover
from valarmind_tui.safety.gate.call import Call, describe_call
from valarmind_tui.safety.gate.call_rules import RuleBook, suggested_rule
from valarmind_tui.safety.gate.denials import PERSON_AGENT_ID, DenialTally, GateDecision
from valarmind_tui.safety.gate.hook_points import GateHooks, HookVerdict, with_updated_input
from valarmind_tui.safety.gate.oversight_points import GateReviewers
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.verdict import Verdict


class AskingGate(Protocol):
    """What asking needs of the gate (PermissionGate has it)."""

    project_root: Path
    approver: Approver
    hooks: GateHooks | None
    reviewers: GateReviewers | None
    appeals: AppealBook
    rules: RuleBook
    denials: DenialTally

    def remember(self, rule: str, *, project: bool = False) -> None: ...

    def refusal(self, call: Call, permissions: AgentPermissions) -> str | None: ...


async def ask_protected(gate: AskingGate, call: Call, params: Any, ctx: Any) -> GateDecision:
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
    return await ask(gate, call, params, ctx, reason, rule=rule, strict=True,
                     protected=call.protected[0][1])


async def ask(
    gate: AskingGate, call: Call, params: Any, ctx: Any, reason: str, *, rule: str,
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
    reviewed = await _tool_approve(gate, call, params, reason, strict, approvable)
    if reviewed is not None:
        return reviewed
    answered = await _permission_hooks(gate, call, params, ctx, strict)
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
    answer = await gate.approver.request(request)
    if not answer.allowed:
        denied = f"Not allowed: {reason}." if strict else "The person denied this call."
        return gate.denials.deny(call, denied, answer.feedback)
    if answer.decision in ("allow_session", "allow_project") and rule:
        gate.remember(rule, project=answer.decision == "allow_project")
    return GateDecision(True, "approved")


async def _tool_approve(
    gate: AskingGate, call: Call, params: Any, reason: str, strict: bool, approvable: bool
) -> GateDecision | None:
    """The tool-approve reviewer (and a pass an appeal won against it); the person's own
    commands go straight to the person."""
    if call.kind == PERSON_AGENT_ID:
        return None
    model_may_approve = _model_may_approve(gate, strict, approvable)
    if gate.appeals.use_pass(call.kind, call.tool.name, params, "reviewer"):
        if not model_may_approve:
            return None
        return GateDecision(True, "allowed on appeal (tool-appeal overturned the denial)")
    step = await gate_reviews.tool_approve(gate.reviewers, call, params, reason,
                                           approvable=model_may_approve)
    if step is None:
        return None
    if step.action is Verdict.ALLOW:
        return GateDecision(True, step.reason)
    return gate.denials.deny(call, gate_reviews.offer_appeal(
        gate.reviewers, gate.appeals, call, params, step.reason, "reviewer", PERSON_AGENT_ID))


def _model_may_approve(gate: AskingGate, strict: bool, approvable: bool) -> bool:
    """A reviewer approves only an ordinary ask that a person would answer: never a strict
    one, a hook's ask or an unconfined command, and never instead of the headless policy
    (the person's flags decide there)."""
    return approvable and not strict and not isinstance(gate.approver, PolicyApprover)


async def _permission_hooks(
    gate: AskingGate, call: Call, params: Any, ctx: Any, strict: bool
) -> GateDecision | None:
    """PermissionRequest hooks answer before a person is asked (an allow never answers a
    strict ask: protected, sensitive, a deny rule that may apply); Notification hooks hear
    that the person will be asked."""
    if gate.hooks is None:
        return None
    verdict = await gate.hooks.permission_request(call.tool.name, params, ctx)
    if verdict.stop is not None:
        raise HookStopped(f"Stopped by a PermissionRequest hook: {verdict.stop}")
    if verdict.decision is Verdict.DENY:
        return gate.denials.deny(call, "Denied by a PermissionRequest hook: "
                                 + (verdict.reason or "denied"))
    if verdict.decision is Verdict.ALLOW and not strict:
        if verdict.updated_input is not None:
            return _updated_by_permission_hook(gate, call, params, ctx, verdict)
        return GateDecision(True, "allowed by a PermissionRequest hook")
    gate.hooks.notify(f"ValarMind needs your permission to use {call.tool.name}",
                      "permission_prompt")
    return None


def _updated_by_permission_hook(
    gate: AskingGate, call: Call, params: Any, ctx: Any, verdict: HookVerdict
) -> GateDecision:
    """A PermissionRequest hook allowed with `updatedInput`: the new arguments run only when
    they pass what the hook could not answer (deny rules, permissions, paths)."""
    try:
        new = with_updated_input(call.tool, params, verdict.updated_input or {})
    except (ToolError, TypeError, ValueError) as exc:
        return gate.denials.deny(
            call, f"A PermissionRequest hook's updatedInput is not valid: {exc}")
    changed = describe_call(gate.project_root, call.tool, new, ctx)
    problem: str | None = None
    if gate.rules.denied_by(changed) is not None:
        problem = "a deny rule refuses it"
    elif call.permissions is not None:
        problem = gate.refusal(changed, call.permissions)
    if problem is None and (changed.protected or changed.sensitive or changed.unparseable
                            or gate.rules.deny_may_apply(changed)):
        problem = "it writes a protected or sensitive path, or cannot be fully checked"
    if problem is not None:
        return gate.denials.deny(
            call, f"A PermissionRequest hook's updatedInput was refused: {problem}")
    return GateDecision(True, "allowed by a PermissionRequest hook (with updatedInput)",
                        params=new)
