"""The permission gate: every tool call passes one pipeline before it runs (seed 002).

    deny rules → PreToolUse hooks → agent permissions → path check → protected paths → ask
    rules → mode → allow rules → reviewers (tool-approve) → PermissionRequest hooks → Approver

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
- the mode: plan lets only reads through, bypass everything but a command asking for the
  network (`network: true`), accept-edits writes in the project, default reads only;
- ask rules (user and project config) ask whatever the mode and the allow rules, before a
  PreToolUse hook's allow (a strict ask: no reviewer or hook answers it);
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

Denials are counted for the whole session (safety.denials): the third denial of one intent
raises DenialEscalated, which stops the whole prompt (a hook's `continue: false` raises
HookStopped, which stops it too). The gate knows tools only by shape (GatedTool) and hooks only
by GateHooks: safety sits below tools and hooks in the layers.

This module keeps the order of the steps; each step lives in its own room: call_rules (what
the rules and permissions say), mode (what the mode says), asking (reviewers, hooks
and the Approver, given what it needs as `Asking`), oversight (the model reviewers), denials
(counting and escalation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import HookStopped, ToolError
from valarmind_tui.core.events import Notice
from valarmind_tui.safety.gate import call_rules
from valarmind_tui.safety.gate import oversight as gate_reviews
from valarmind_tui.safety.gate.appeals import AppealBook
from valarmind_tui.safety.gate.approval import Approver, PermissionMode
from valarmind_tui.safety.gate.asking import Asking, ask, ask_protected
from valarmind_tui.safety.gate.call import Call, GatedTool, agent_kind, describe_call
from valarmind_tui.safety.gate.call_rules import RuleBook, suggested_rule
from valarmind_tui.safety.gate.denials import PERSON_AGENT_ID, DenialTally, GateDecision
from valarmind_tui.safety.gate.hook_points import (
    NO_OPINION,
    GateHooks,
    HookVerdict,
    with_updated_input,
)
from valarmind_tui.safety.gate.mode import allowed_by_mode, plan_mode_refusal
from valarmind_tui.safety.gate.oversight_points import GateReviewers
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.rules import Rule
from valarmind_tui.safety.gate.verdict import Verdict
from valarmind_tui.settings.config import PermissionSettings

__all__ = ["GateDecision", "GatedTool", "PermissionGate", "agent_kind"]


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
        self.rules = RuleBook(rules or PermissionSettings(), user_rules or PermissionSettings())
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
        self.denials = DenialTally()
        for text in self.rules.invalid:
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
        if verdict.decision is Verdict.DENY:
            return self._deny(call, f"Blocked by a PreToolUse hook: {verdict.reason or 'denied'}")
        if verdict.updated_input is None:
            return await self._pipeline(call, params, ctx, permissions, verdict)
        try:
            params = with_updated_input(tool, params, verdict.updated_input)
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
        rule = self.rules.denied_by(call)
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
        refusal = self.refusal(call, permissions)
        if refusal is not None:
            return self._deny(call, refusal)
        if call.protected and self.rules.person_allows(call) is None:
            return await ask_protected(self._asking(), call, params, ctx)
        if call.sensitive:
            reason = f"{', '.join(call.sensitive)} may hold secrets"
            return await ask(self._asking(), call, params, ctx, reason, rule="", strict=True)
        maybe_denied = self.rules.deny_may_apply(call)
        if maybe_denied is not None:
            deny_rule, reason = maybe_denied
            return await ask(self._asking(), call, params, ctx, reason, rule="", strict=True,
                             deny_rule=str(deny_rule))
        asking_rule = self.rules.asked_by(call)
        if asking_rule is not None:
            return await ask(self._asking(), call, params, ctx,
                             f"the ask rule {asking_rule} matches", rule="", strict=True)
        if verdict.decision is Verdict.ASK:
            reason = f"a PreToolUse hook asks: {verdict.reason or 'confirm this call'}"
            return await ask(self._asking(), call, params, ctx, reason, rule=suggested_rule(call),
                             approvable=False)
        if verdict.decision is Verdict.ALLOW:
            said = f": {verdict.reason}" if verdict.reason else ""
            return GateDecision(True, f"allowed by a PreToolUse hook{said}")
        if call.risk == "execute" and self.unconfined_commands_ask:
            allowing = self.rules.person_allows(call)
            if allowing is not None:
                return GateDecision(True, f"allowed by the rule {allowing}")
            reason = "runs a command, and no sandbox is available to confine it"
            return await ask(self._asking(), call, params, ctx, reason, rule=suggested_rule(call),
                             approvable=False)
        by_mode = allowed_by_mode(self.mode, call)
        if by_mode is not None:
            return GateDecision(True, by_mode)
        allowing = self.rules.allows(call)
        if allowing is not None:
            return GateDecision(True, f"allowed by the rule {allowing}")
        reason = getattr(tool, "ask_reason", None) or {
            "write": f"{tool.name} changes files", "execute": "runs a command",
            "web": "uses the network"}.get(call.risk, f"{call.risk} tool")
        if call.unparseable:
            reason += f" (not checked by the rules: {'; '.join(call.unparseable)})"
        return await ask(self._asking(), call, params, ctx, reason, rule=suggested_rule(call))

    def refusal(self, call: Call, permissions: AgentPermissions) -> str | None:
        """Why the call is refused outright after the deny rules and the PreToolUse hooks
        (agent permission, path, plan mode)."""
        refused = call_rules.permission_refusal(call, permissions)
        if refused is not None:
            return refused
        if call.outside is not None:
            return call.outside
        return plan_mode_refusal(self.mode, call)

    def _asking(self) -> Asking:
        """What the ask step uses, as the gate holds it now (a test or a face may have put
        another approver in)."""
        return Asking(self.approver, self.hooks, self.reviewers, self.appeals, self.denials,
                      lambda rule, project: self.remember(rule, project=project),
                      self._updated_input_problem)

    def _updated_input_problem(self, call: Call, new: Any, ctx: Any) -> str | None:
        """Why a PermissionRequest hook's `updatedInput` may not run: it must pass what the
        hook could not answer (deny rules, permissions, paths, protected and sensitive paths,
        a command the rules cannot fully check)."""
        changed = describe_call(self.project_root, call.tool, new, ctx)
        if self.rules.denied_by(changed) is not None:
            return "a deny rule refuses it"
        if call.permissions is not None:
            refused = self.refusal(changed, call.permissions)
            if refused is not None:
                return refused
        if (changed.protected or changed.sensitive or changed.unparseable
                or self.rules.deny_may_apply(changed)):
            return "it writes a protected or sensitive path, or cannot be fully checked"
        return None

    # -- what the session asks of the gate -----------------------------------------------
    async def appeal(self, denial_id: str, justification: str, agent_id: str) -> tuple[bool, str]:
        """tool-appeal: an agent's appeal of a reviewer's or deny rule's denial (once each)."""
        return await gate_reviews.hear_appeal(self.reviewers, self.appeals, agent_id,
                                              agent_kind(agent_id), denial_id, justification)

    def remember(self, rule: str, *, project: bool = False) -> None:
        """Allow calls matching `rule` for the rest of the session (and in the project config)."""
        self.rules.session.add(Rule.parse(rule))
        where = "this session"
        if project and self.on_remember is not None:
            try:
                self.on_remember(rule)
                where = "this project"
            except Exception as exc:  # noqa: BLE001 - a failed save must not fail the call
                self._notice("warning", f"Could not save the rule {rule}: {exc}")
        self._notice("info", f"Allowed {rule} for {where}.")

    def denial_counts(self) -> dict[tuple[str, str], int]:
        """Denials so far this session, by (agent kind, intent)."""
        return self.denials.counts()

    def reset_denials(self) -> None:
        """Forget denial counts (/clear). Counts otherwise last the whole session: a new prompt
        does not reset them, so denials spread over prompts and delegations still add up."""
        self.denials.clear()

    def _deny(self, call: Call, reason: str) -> GateDecision:
        return self.denials.deny(call, reason)

    def _notice(self, level: Literal["info", "warning"], message: str) -> None:
        if self.bus is not None:
            self.bus.publish(Notice(level=level, message=message))
