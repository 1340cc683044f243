"""The permission gate: every tool call passes one pipeline before it runs (seed 002).

    deny rules → PreToolUse hooks → agent permissions → path check → protected paths → mode
    → allow rules → reviewers (tool-approve) → PermissionRequest hooks → Approver

- deny rules (user and project config) refuse whatever the mode. A bash command is parsed
  (safety.shell): a deny rule refuses it if ANY simple command in it matches (`rm -rf X; true`,
  `sh -c 'rm x'`, `/bin/rm`, `env rm` all run `rm`); when a deny rule exists for the tool and
  the command cannot be parsed statically, the call asks, even in bypass;
- agent permissions refuse a tool whose risk the agent was not granted (a tool offered to the
  agent by its MCP server's or plugin's `agents` setting is granted by it; and narrow writes to
  `write_globs`, commands to `execute_allow`: one simple command whose words start with an
  allowed command's words, safety.allowed_commands);
- a path outside the project is refused (a bash redirection target too); a sensitive path
  (`.env`, keys...) always asks, even in bypass and accept-edits, and no remembered rule
  answers for it;
- a write to a protected path (`.git/`, `.valarmind/`, `.mcp.json`, `.gitattributes`... see
  paths.protected_by; through write tools, bash redirections or writing commands) asks in every
  mode unless one of the person's own allow rules (user config or this session) names it;
- with `unconfined_commands_ask` (no sandbox available) every command asks in every mode;
- the mode: plan lets only reads through, bypass everything, accept-edits writes in the project,
  default reads only;
- allow rules remembered for the session (in memory), the user or the project answer "ask"; a
  bash command passes only if EVERY simple command in it matches an allow rule, and never when
  part of it cannot be parsed;
- PreToolUse hooks (the person's, through the GateHooks seam) run after the deny rules: a
  hook's deny refuses, its `updatedInput` replaces the arguments (checked against the deny
  rules again), its `ask` asks whatever the mode, and its `allow` answers only the "ask" steps
  (unconfined commands, the mode, the allow rules): never a refusal, a protected or sensitive
  path, or a deny rule that may apply;
- the tool-approve reviewer (config `[reviewers]`, off by default) may then deny, or approve
  an ordinary ask (never a strict one or a hook's ask); exit_plan_mode's plan passes the
  plan-validate reviewer first; a reviewer's or a deny rule's denial may be appealed once
  (tool-appeal, safety.gate_reviews);
- otherwise PermissionRequest hooks may answer (an allow never answers a strict ask; an
  allow's `updatedInput` runs only if it passes the deny rules, permissions and path checks),
  the Notification hooks hear that a person is asked, and the Approver (TUI modal, REPL
  prompt, headless policy) decides.

Denials are counted for the whole session by agent kind (`code-1` and `code-2` are both `code`)
and intent (the command's verbs, the paths written): the third denial of one intent raises
DenialEscalated, which stops the whole prompt (a hook's `continue: false` raises HookStopped,
which stops it too). The gate knows tools only by shape (GatedTool) and hooks only by
GateHooks: safety sits below tools and hooks in the layers.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from valarmind_tui.bus import EventBus
from valarmind_tui.config import PermissionSettings
from valarmind_tui.errors import DenialEscalated, HookStopped, ToolError
from valarmind_tui.events import Notice
from valarmind_tui.safety import call_rules, gate_reviews
from valarmind_tui.safety.appeals import AppealBook
from valarmind_tui.safety.approval import (
    ApprovalRequest,
    Approver,
    PermissionMode,
    PolicyApprover,
)
from valarmind_tui.safety.call import Call, GatedTool, agent_kind, describe_call
from valarmind_tui.safety.hook_points import NO_OPINION, GateHooks, HookVerdict
from valarmind_tui.safety.paths import glob_match
from valarmind_tui.safety.permissions import AgentPermissions
from valarmind_tui.safety.review_points import GateReviewers
from valarmind_tui.safety.rules import Rule, RuleSet, suggest_rule

__all__ = ["ESCALATE_AFTER", "GateDecision", "GatedTool", "PermissionGate", "agent_kind"]

ESCALATE_AFTER = 3
PERSON_AGENT_ID = "user"
"""The agent id of the person's own `!command`s (Session.run_shell): refused, never escalated."""
# delegate passes: the Delegator itself refuses specialists that write or execute in plan mode.
PLAN_MODE_TOOLS = ("task_*", "exit_plan_mode", "delegate")


@dataclass(frozen=True)
class GateDecision:
    allowed: bool
    reason: str = ""
    feedback: str | None = None
    """What the person said when denying; goes back to the model."""
    params: Any = None
    """The arguments to run with when a PreToolUse hook replaced them (`updatedInput`)."""


class PermissionGate:
    """Decides, for each tool call, allow or deny, asking the Approver when the pipeline says so.

    `rules` come from the project's config (untrusted: they may allow, never unlock protected
    paths); `user_rules` from the person's own config (they may name a protected path).
    `unconfined_commands_ask`: the sandbox cannot run, so every command asks in every mode.
    """

    def __init__(
        self, project_root: Path, approver: Approver, *,
        mode: PermissionMode = PermissionMode.DEFAULT, rules: PermissionSettings | None = None,
        on_remember: Callable[[str], None] | None = None, bus: EventBus | None = None,
        user_rules: PermissionSettings | None = None, unconfined_commands_ask: bool = False,
        hooks: GateHooks | None = None, reviewers: GateReviewers | None = None,
    ) -> None:
        self.project_root = Path(project_root).resolve()
        self.approver = approver
        self.mode = PermissionMode(mode)
        project = rules or PermissionSettings()
        user = user_rules or PermissionSettings()
        self.project_rules = RuleSet.from_strings(project.allow)
        self.user_rules = RuleSet.from_strings(user.allow)
        self.deny_rules = RuleSet.from_strings([*user.deny, *project.deny])
        self.session_rules = RuleSet()
        self.unconfined_commands_ask = unconfined_commands_ask
        self.on_remember = on_remember
        self.bus = bus
        self.hooks = hooks
        """The person's hooks (PreToolUse, PermissionRequest...); run_gated and the agent loop
        reach PostToolUse and Stop through it too."""
        self.reviewers = reviewers
        """The model reviewers; the agent loop reaches intent-check and error-acknowledge
        through it too."""
        self.appeals = AppealBook()
        self._denials: Counter[tuple[str, str]] = Counter()
        invalid = self.project_rules.invalid + self.user_rules.invalid + self.deny_rules.invalid
        for text in invalid:
            self._notice("warning", f"Ignored an invalid permission rule: {text!r}")

    # -- the pipeline -------------------------------------------------------------------
    async def check(
        self, tool: GatedTool, params: Any, ctx: Any, permissions: AgentPermissions
    ) -> GateDecision:
        """Allow or deny one call; raises DenialEscalated on the third denial of one intent
        (HookStopped when a hook said `continue: false`)."""
        call = describe_call(self.project_root, tool, params, ctx)
        call.permissions = permissions
        denied = self._rule_denial(call, params)
        if denied is not None:
            return denied
        if self.hooks is None:
            return await self._reviewed(call, params, ctx, permissions, NO_OPINION)
        verdict = await self.hooks.pre_tool_use(tool.name, params, ctx)
        if verdict.stop is not None:
            raise HookStopped(f"Stopped by a PreToolUse hook: {verdict.stop}")
        if verdict.decision == "deny":
            return self._deny(call, f"Blocked by a PreToolUse hook: {verdict.reason or 'denied'}")
        if verdict.updated_input is None:
            return await self._pipeline(call, params, ctx, permissions, verdict)
        parse = getattr(tool, "parse", None)
        try:
            dumped = params.model_dump() if hasattr(params, "model_dump") else dict(params)
            params = parse({**dumped, **verdict.updated_input}) if parse else params
        except (ToolError, TypeError, ValueError) as exc:
            return self._deny(call, f"A PreToolUse hook's updatedInput is not valid: {exc}")
        call = describe_call(self.project_root, tool, params, ctx)
        call.permissions = permissions
        denied = self._rule_denial(call, params)
        if denied is not None:
            return denied
        decision = await self._reviewed(call, params, ctx, permissions, verdict)
        return replace(decision, params=decision.params if decision.params is not None
                       else params)

    def _rule_denial(self, call: Call, params: Any) -> GateDecision | None:
        """The deny rule's refusal, or None when none applies. Once an appeal overturned this
        very call, the call goes on through the pipeline and, if nothing else refuses it, the
        person decides (a strict ask naming the rule)."""
        rule = self._denied_by(call)
        if rule is None:
            return None
        if self.appeals.use_pass(call.kind, call.tool.name, params, "rule"):
            call.appealed_rule = rule
            return None
        reason = f"{call.tool.name} is blocked by the deny rule {rule}."
        return self._deny(call, gate_reviews.offer_appeal(
            self.reviewers, self.appeals, call, params, reason, "rule", PERSON_AGENT_ID))

    async def _reviewed(
        self, call: Call, params: Any, ctx: Any, permissions: AgentPermissions,
        verdict: HookVerdict,
    ) -> GateDecision:
        """The pipeline, then plan-validate for an allowed exit_plan_mode."""
        decision = await self._pipeline(call, params, ctx, permissions, verdict)
        if not decision.allowed:
            return decision
        step = await gate_reviews.validate_plan(self.reviewers, call, params)
        return decision if step is None else self._deny(call, step.reason)

    async def _pipeline(
        self, call: Call, params: Any, ctx: Any, permissions: AgentPermissions,
        verdict: HookVerdict,
    ) -> GateDecision:
        """Everything after the deny rules and the PreToolUse hooks."""
        tool = call.tool
        refusal = self._refusal(call, permissions)
        if refusal is not None:
            return self._deny(call, refusal)
        if call.protected and self._person_allows(call) is None:
            return await self._ask_protected(call, params, ctx)
        if call.sensitive:
            reason = f"{', '.join(call.sensitive)} may hold secrets"
            return await self._ask(call, params, ctx, reason, rule="", strict=True)
        maybe_denied = self._deny_may_apply(call)
        if maybe_denied is not None:
            rule, reason = maybe_denied
            return await self._ask(call, params, ctx, reason, rule="", strict=True,
                                   deny_rule=str(rule))
        if verdict.decision == "ask":
            reason = f"a PreToolUse hook asks: {verdict.reason or 'confirm this call'}"
            return await self._ask(call, params, ctx, reason, rule=self._suggest(call),
                                   approvable=False)
        if verdict.decision == "allow":
            said = f": {verdict.reason}" if verdict.reason else ""
            return self._allow(call, f"allowed by a PreToolUse hook{said}")
        if call.risk == "execute" and self.unconfined_commands_ask:
            rule = self._person_allows(call)
            if rule is not None:
                return self._allow(call, f"allowed by the rule {rule}")
            reason = "runs a command, and no sandbox is available to confine it"
            return await self._ask(call, params, ctx, reason, rule=self._suggest(call),
                                   approvable=False)
        verdict = self._by_mode(call)
        if verdict is not None:
            return self._allow(call, verdict)
        rule = call_rules.allow_rule_for(call, self.session_rules, self.user_rules,
                                         self.project_rules)
        if rule is not None:
            return self._allow(call, f"allowed by the rule {rule}")
        reason = getattr(tool, "ask_reason", None) or {
            "write": f"{tool.name} changes files", "execute": "runs a command",
            "web": "uses the network"}.get(call.risk, f"{call.risk} tool")
        if call.unparseable:
            reason += f" (not checked by the rules: {'; '.join(call.unparseable)})"
        return await self._ask(call, params, ctx, reason, rule=self._suggest(call))

    def _refusal(self, call: Call, permissions: AgentPermissions) -> str | None:
        """Why the call is refused outright after the deny rules and the PreToolUse hooks
        (agent permission, path, plan mode)."""
        refused = call_rules.permission_refusal(call, permissions)
        if refused is not None:
            return refused
        if call.outside is not None:
            return call.outside
        if self.mode is PermissionMode.PLAN and call.risk != "read" and not any(
            glob_match(p, call.tool.name) for p in PLAN_MODE_TOOLS
        ):
            return (
                f"Plan mode is on: only read-only tools may run, so {call.tool.name} was not "
                "run. Investigate with read tools and present your plan; the person leaves plan "
                "mode when they accept it."
            )
        return None

    def _by_mode(self, call: Call) -> str | None:
        """The reason a call passes by mode alone, None when it must go on to rules and asking."""
        if self.mode is PermissionMode.BYPASS:
            return "bypass mode"
        if call.risk in ("read", "spawn") or any(
            glob_match(p, call.tool.name) for p in PLAN_MODE_TOOLS
        ):
            return f"{call.risk} tool"
        external = getattr(call.tool, "agents", None) is not None  # MCP or plugin: not an edit
        if self.mode is PermissionMode.ACCEPT_EDITS and call.risk == "write" and not external:
            return "accept-edits mode allows writes inside the project"
        return None

    # -- rules --------------------------------------------------------------------------
    def _denied_by(self, call: Call) -> Rule | None:
        return call_rules.deny_rule_for(self.deny_rules, call)

    def _deny_may_apply(self, call: Call) -> tuple[Rule, str] | None:
        if call.appealed_rule is not None:
            return call.appealed_rule, (f"the deny rule {call.appealed_rule} refuses it; an "
                                        "appeal asks you to decide")
        return call_rules.deny_rule_may_apply(self.deny_rules, call)

    def _person_allows(self, call: Call) -> Rule | None:
        """A rule of the person's own (user config or this session) that names what the call
        touches: a bare tool name does not unlock protected paths."""
        rule = call_rules.allow_rule_for(call, self.session_rules, self.user_rules)
        return rule if rule is not None and rule.spec is not None else None

    def _suggest(self, call: Call) -> str:
        return suggest_rule(call.tool.name, call.subject.command, call.subject.paths)

    # -- asking -------------------------------------------------------------------------
    async def _ask_protected(self, call: Call, params: Any, ctx: Any) -> GateDecision:
        what = ", ".join(f"{target} (protected-path rule {rule})"
                         for target, rule in call.protected)
        reason = (f"writes a protected path: {what}; repository configuration and git's files "
                  "can make the next run or git execute commands")
        if call.subject.command is None and call.subject.paths:
            names = call.subject.paths
            rule = f"{call.tool.name}({names[0]})" if len(names) == 1 else ""
        else:
            rule = self._suggest(call)
        return await self._ask(call, params, ctx, reason, rule=rule, strict=True,
                               protected=call.protected[0][1])

    async def _ask(
        self, call: Call, params: Any, ctx: Any, reason: str, *, rule: str,
        strict: bool = False, protected: str | None = None, deny_rule: str | None = None,
        approvable: bool = True,
    ) -> GateDecision:
        """Ask the reviewers, then the Approver. `strict` asks are ones no mode answers: a
        denial names why; neither they nor a hook's ask (`approvable=False`) may be approved
        by a model."""
        try:
            preview = await call.tool.preview(params, ctx)
        except ToolError as exc:
            preview = None
            reason += f" (preview failed: {exc})"
        except Exception as exc:  # noqa: BLE001 - a broken preview must not crash the gate
            preview = None
            reason += f" (no preview: {type(exc).__name__})"
        reviewed = await self._tool_approve(call, params, reason, strict, approvable)
        if reviewed is not None:
            return reviewed
        answered = await self._permission_hooks(call, params, ctx, strict)
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
        answer = await self.approver.request(request)
        if not answer.allowed:
            denied = f"Not allowed: {reason}." if strict else "The person denied this call."
            return self._deny(call, denied, answer.feedback)
        if answer.decision in ("allow_session", "allow_project") and rule:
            self.remember(rule, project=answer.decision == "allow_project")
        return self._allow(call, "approved")

    async def _tool_approve(
        self, call: Call, params: Any, reason: str, strict: bool, approvable: bool
    ) -> GateDecision | None:
        """The tool-approve reviewer (and a pass an appeal won against it); the person's own
        commands go straight to the person."""
        if call.kind == PERSON_AGENT_ID:
            return None
        if self.appeals.use_pass(call.kind, call.tool.name, params, "reviewer"):
            if not self._model_may_approve(strict, approvable):
                return None
            return self._allow(call, "allowed on appeal (tool-appeal overturned the denial)")
        step = await gate_reviews.tool_approve(self.reviewers, call, params, reason,
                                               approvable=self._model_may_approve(
                                                   strict, approvable))
        if step is None:
            return None
        if step.action == "allow":
            return self._allow(call, step.reason)
        return self._deny(call, gate_reviews.offer_appeal(
            self.reviewers, self.appeals, call, params, step.reason, "reviewer",
            PERSON_AGENT_ID))

    def _model_may_approve(self, strict: bool, approvable: bool) -> bool:
        """A reviewer approves only an ordinary ask that a person would answer: never a strict
        one, a hook's ask or an unconfined command, and never instead of the headless policy
        (the person's flags decide there)."""
        return approvable and not strict and not isinstance(self.approver, PolicyApprover)

    async def appeal(self, denial_id: str, justification: str, agent_id: str) -> tuple[bool, str]:
        """tool-appeal: an agent's appeal of a reviewer's or deny rule's denial (once each)."""
        return await gate_reviews.hear_appeal(self.reviewers, self.appeals, agent_id,
                                              agent_kind(agent_id), denial_id, justification)

    async def _permission_hooks(
        self, call: Call, params: Any, ctx: Any, strict: bool
    ) -> GateDecision | None:
        """PermissionRequest hooks answer before a person is asked (an allow never answers a
        strict ask: protected, sensitive, a deny rule that may apply); Notification hooks hear
        that the person will be asked."""
        if self.hooks is None:
            return None
        verdict = await self.hooks.permission_request(call.tool.name, params, ctx)
        if verdict.stop is not None:
            raise HookStopped(f"Stopped by a PermissionRequest hook: {verdict.stop}")
        if verdict.decision == "deny":
            return self._deny(call, "Denied by a PermissionRequest hook: "
                              + (verdict.reason or "denied"))
        if verdict.decision == "allow" and not strict:
            if verdict.updated_input is not None:
                return await self._updated_by_permission_hook(call, params, ctx, verdict)
            return self._allow(call, "allowed by a PermissionRequest hook")
        self.hooks.notify(f"ValarMind needs your permission to use {call.tool.name}",
                          "permission_prompt")
        return None

    async def _updated_by_permission_hook(
        self, call: Call, params: Any, ctx: Any, verdict: HookVerdict
    ) -> GateDecision:
        """A PermissionRequest hook allowed with `updatedInput`: the new arguments run only when
        they pass what the hook could not answer (deny rules, permissions, paths)."""
        tool = call.tool
        parse = getattr(tool, "parse", None)
        try:
            dumped = params.model_dump() if hasattr(params, "model_dump") else dict(params)
            new = parse({**dumped, **(verdict.updated_input or {})}) if parse else params
        except (ToolError, TypeError, ValueError) as exc:
            return self._deny(call, f"A PermissionRequest hook's updatedInput is not valid: {exc}")
        changed = describe_call(self.project_root, tool, new, ctx)
        problem = self._denied_by(changed) and "a deny rule refuses it"
        if not problem and call.permissions is not None:
            problem = self._refusal(changed, call.permissions)
        if not problem and (changed.protected or changed.sensitive or changed.unparseable
                            or self._deny_may_apply(changed)):
            problem = "it writes a protected or sensitive path, or cannot be fully checked"
        if problem:
            return self._deny(call, "A PermissionRequest hook's updatedInput was refused: "
                              + str(problem))
        return GateDecision(True, "allowed by a PermissionRequest hook (with updatedInput)",
                            params=new)

    def remember(self, rule: str, *, project: bool = False) -> None:
        """Allow calls matching `rule` for the rest of the session (and in the project config)."""
        self.session_rules.add(Rule.parse(rule))
        where = "this session"
        if project and self.on_remember is not None:
            try:
                self.on_remember(rule)
                where = "this project"
            except Exception as exc:  # noqa: BLE001 - a failed save must not fail the call
                self._notice("warning", f"Could not save the rule {rule}: {exc}")
        self._notice("info", f"Allowed {rule} for {where}.")

    # -- bookkeeping --------------------------------------------------------------------
    def _allow(self, call: Call, reason: str) -> GateDecision:
        return GateDecision(True, reason)

    def _deny(self, call: Call, reason: str, feedback: str | None = None) -> GateDecision:
        """Count the denial for each of the call's intents; the third of one escalates."""
        kind = call.kind
        if kind == PERSON_AGENT_ID:
            return GateDecision(False, reason, feedback)
        escalated: str | None = None
        for intent in call.intents:
            self._denials[(kind, intent)] += 1
            if self._denials[(kind, intent)] >= ESCALATE_AFTER and escalated is None:
                escalated = intent
        if escalated is not None:
            self._denials.pop((kind, escalated), None)
            raise DenialEscalated(
                f"Stopped: {ESCALATE_AFTER} similar attempts to use {call.tool.name} "
                f"({escalated}) by the {kind} agent were denied (last reason: {reason}"
                + (f" Feedback: {feedback}" if feedback else "")
                + "). The person needs to decide how to go on."
            )
        return GateDecision(False, reason, feedback)

    def denial_counts(self) -> dict[tuple[str, str], int]:
        """Denials so far this session, by (agent kind, intent)."""
        return dict(self._denials)

    def reset_denials(self) -> None:
        """Forget denial counts (/clear). Counts otherwise last the whole session: a new prompt
        does not reset them, so denials spread over prompts and delegations still add up."""
        self._denials.clear()

    def _notice(self, level: str, message: str) -> None:
        if self.bus is not None:
            self.bus.publish(Notice(level=level, message=message))  # type: ignore[arg-type]
