"""Combining what several handlers of one tool event said (Claude Code's output fields).

PreToolUse: exit 2 (stderr), `hookSpecificOutput.permissionDecision` deny/ask/allow with
`permissionDecisionReason`, the older `decision` block/approve, `updatedInput`, `continue: false`.
Any deny wins over any ask, which wins over any allow: the strictest `Verdict`, their `max`.
"""

from __future__ import annotations

from typing import Any

from valarmind_tui.hooks.names import from_hook_input
from valarmind_tui.hooks.process import HookResult
from valarmind_tui.safety.gate.hook_points import NO_OPINION, HookVerdict, PostToolFeedback
from valarmind_tui.safety.gate.verdict import Verdict

_LEGACY: dict[str, Verdict] = {"block": Verdict.DENY, "approve": Verdict.ALLOW}


def _decision(value: Any, legacy: bool = False) -> Verdict | None:
    """A decision the hook spelled as one of the known strings; anything else (a list, a number,
    an unknown word: the output is untrusted JSON) is no decision."""
    if legacy:
        return _LEGACY.get(value) if isinstance(value, str) else None
    return Verdict.spelled(value)


def _stop_reason(results: list[HookResult]) -> str | None:
    for result in results:
        output = result.output or {}
        if output.get("continue") is False:
            return str(output.get("stopReason") or "a hook stopped the prompt")
    return None


def _combine(said: list[tuple[Verdict, str]], updated: dict[str, Any] | None,
             stop: str | None) -> HookVerdict:
    if not said and updated is None and stop is None:
        return NO_OPINION
    decision = max((d for d, _ in said), default=None)
    reason = "\n".join(r for d, r in said if d == decision and r)
    return HookVerdict(decision=decision, reason=reason, updated_input=updated, stop=stop)


def pre_tool_verdict(results: list[HookResult], tool: str) -> HookVerdict:
    said: list[tuple[Verdict, str]] = []
    updated: dict[str, Any] | None = None
    for result in results:
        if result.blocked:
            said.append((Verdict.DENY, result.stderr.strip() or "blocked by a PreToolUse hook"))
            continue
        output, specific = result.output or {}, result.specific
        decision = (_decision(specific.get("permissionDecision"))
                    or _decision(output.get("decision"), legacy=True))
        if decision is not None:
            reason = specific.get("permissionDecisionReason") or output.get("reason") or ""
            said.append((decision, str(reason)))
        if isinstance(specific.get("updatedInput"), dict) and decision is not Verdict.DENY:
            updated = from_hook_input(tool, specific["updatedInput"])
    return _combine(said, updated, _stop_reason(results))


def permission_verdict(results: list[HookResult], tool: str) -> HookVerdict:
    """PermissionRequest: `hookSpecificOutput.decision.behavior` allow/deny with `message` and
    `updatedInput`; exit 2 denies; `permissionDecision` is read too."""
    said: list[tuple[Verdict, str]] = []
    updated: dict[str, Any] | None = None
    for result in results:
        if result.blocked:
            said.append((Verdict.DENY,
                         result.stderr.strip() or "denied by a PermissionRequest hook"))
            continue
        behaviour = result.specific.get("decision")
        behaviour = behaviour if isinstance(behaviour, dict) else {}
        said_behaviour = _decision(behaviour.get("behavior"))
        asked = _decision(result.specific.get("permissionDecision"))
        if said_behaviour in (Verdict.ALLOW, Verdict.DENY):
            said.append((said_behaviour, str(behaviour.get("message") or "")))
            if isinstance(behaviour.get("updatedInput"), dict):
                updated = from_hook_input(tool, behaviour["updatedInput"])
        elif asked is not None:
            said.append((asked, str(result.specific.get("permissionDecisionReason") or "")))
    return _combine(said, updated, _stop_reason(results))


def post_feedback(results: list[HookResult]) -> PostToolFeedback:
    blocks: list[str] = []
    context: list[str] = []
    for result in results:
        output = result.output or {}
        if result.blocked:
            blocks.append(result.stderr.strip() or "a PostToolUse hook objected (exit code 2)")
        elif output.get("decision") == "block":
            blocks.append(str(output.get("reason") or "a PostToolUse hook objected"))
        extra = result.specific.get("additionalContext")
        if extra:
            context.append(str(extra))
    return PostToolFeedback(block_reason="\n".join(blocks) or None,
                            context="\n".join(context) or None, stop=_stop_reason(results))
