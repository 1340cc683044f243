"""The permission gate: every tool call passes one pipeline before it runs (seed 002).

    deny rules → PreToolUse hooks → agent permissions → path check → protected paths → mode
    → allow rules → PermissionRequest hooks → Approver

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
- otherwise PermissionRequest hooks may answer (an allow never answers a strict ask), the
  Notification hooks hear that a person is asked, and the Approver (TUI modal, REPL prompt,
  headless policy) decides.

Denials are counted for the whole session by agent kind (`code-1` and `code-2` are both `code`)
and intent (the command's verbs, the paths written): the third denial of one intent raises
DenialEscalated, which stops the whole prompt (a hook's `continue: false` raises HookStopped,
which stops it too). The gate knows tools only by shape (GatedTool) and hooks only by
GateHooks: safety sits below tools and hooks in the layers.
"""

from __future__ import annotations

import fnmatch
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
from valarmind_tui.safety.allowed_commands import allowed_by_prefix
from valarmind_tui.safety.approval import ApprovalRequest, Approver, PermissionMode
from valarmind_tui.safety.call import Call, GatedTool, agent_kind, describe_call
from valarmind_tui.safety.hook_points import NO_OPINION, GateHooks, HookVerdict
from valarmind_tui.safety.paths import glob_match
from valarmind_tui.safety.permissions import AgentPermissions
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
        hooks: GateHooks | None = None,
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
        denied_by = self._denied_by(call)
        if denied_by is not None:
            return self._deny(call, f"{tool.name} is blocked by the deny rule {denied_by}.")
        if self.hooks is None:
            return await self._pipeline(call, params, ctx, permissions, NO_OPINION)
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
        denied_by = self._denied_by(call)
        if denied_by is not None:
            return self._deny(call, f"{tool.name} is blocked by the deny rule {denied_by}.")
        decision = await self._pipeline(call, params, ctx, permissions, verdict)
        return replace(decision, params=params)

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
            return await self._ask(call, params, ctx, reason, rule=self._suggest(call))
        if verdict.decision == "allow":
            said = f": {verdict.reason}" if verdict.reason else ""
            return self._allow(call, f"allowed by a PreToolUse hook{said}")
        if call.risk == "execute" and self.unconfined_commands_ask:
            rule = self._person_allows(call)
            if rule is not None:
                return self._allow(call, f"allowed by the rule {rule}")
            reason = "runs a command, and no sandbox is available to confine it"
            return await self._ask(call, params, ctx, reason, rule=self._suggest(call))
        verdict = self._by_mode(call)
        if verdict is not None:
            return self._allow(call, verdict)
        rule = self._allowed_by(call, self.session_rules, self.user_rules, self.project_rules)
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
        refused = self._permission_refusal(call, permissions)
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

    def _permission_refusal(self, call: Call, permissions: AgentPermissions) -> str | None:
        agent, name = call.agent_id, call.tool.name
        if getattr(call.tool, "agents", None) is not None:
            return None  # offered to this agent by its MCP server's or plugin's `agents`
        if not getattr(permissions, call.risk, False):
            return (f"The {agent} agent may not use {name}: it has no {call.risk} permission. "
                    "Do the task with the tools you have, or report what is needed.")
        paths = call.subject.paths
        if call.risk == "write" and permissions.write_globs is not None:
            globs = permissions.write_globs
            outside = [p for p in paths if not any(glob_match(g, p) for g in globs)]
            if outside:
                allowed = ", ".join(permissions.write_globs)
                return (f"The {agent} agent may only write to {allowed}; "
                        f"{', '.join(outside)} is not among them.")
        command = call.subject.command
        if call.risk == "execute" and permissions.execute_allow is not None:
            allowed = permissions.execute_allow
            if command is None or allowed_by_prefix(command, allowed) is None:
                listed = "; ".join(allowed) or "none"
                return (f"The {agent} agent may run only these commands: {listed} (with more "
                        "arguments after them, as one simple command: no ;, &&, pipes, "
                        "redirections or substitutions).")
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
        """The deny rule the call (or ANY simple command of its bash command) matches."""
        for rule in self.deny_rules.rules:
            if rule.matches(call.subject):
                return rule
            if call.parsed is not None and any(
                rule.matches_argv(call.tool.name, form) is True
                for c in call.parsed.commands for form in c.forms()
            ):
                return rule
        return None

    def _deny_may_apply(self, call: Call) -> tuple[Rule, str] | None:
        """A deny rule that might apply to a command the parser cannot fully see, and why."""
        if call.parsed is None:
            return None
        for rule in self.deny_rules.rules:
            if not fnmatch.fnmatchcase(call.tool.name, rule.tool):
                continue
            if call.unparseable:
                return rule, (f"the deny rule {rule} cannot be checked: "
                              f"{'; '.join(call.unparseable)}")
            if any(rule.matches_argv(call.tool.name, form) is None
                   for c in call.parsed.commands for form in c.forms()):
                return rule, (f"the deny rule {rule} may apply: a word it checks is known only "
                              "when the command runs")
        return None

    def _allowed_by(self, call: Call, *rulesets: RuleSet) -> Rule | None:
        """The allow rule that answers for the call: for bash, every simple command must match
        one; a command with unparseable parts is answered by none."""
        rules = [r for rs in rulesets for r in rs.rules]
        if call.parsed is None:
            return next((r for r in rules if r.matches(call.subject)), None)
        if call.unparseable or not call.parsed.commands:
            return None
        exact = next((r for r in rules if r.spec is not None and not r.spec.endswith(":*")
                      and r.matches(call.subject)), None)
        if exact is not None:  # the person allowed this very command string
            return exact
        first: Rule | None = None
        for command in call.parsed.commands:
            rule = next((r for r in rules if r.matches_argv(call.tool.name, command.argv) is True),
                        None)
            if rule is None:
                return None
            first = first or rule
        return first

    def _person_allows(self, call: Call) -> Rule | None:
        """A rule of the person's own (user config or this session) that names what the call
        touches: a bare tool name does not unlock protected paths."""
        rule = self._allowed_by(call, self.session_rules, self.user_rules)
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
    ) -> GateDecision:
        """Ask the Approver. `strict` asks are ones no mode answers: a denial names why."""
        try:
            preview = await call.tool.preview(params, ctx)
        except ToolError as exc:
            preview = None
            reason += f" (preview failed: {exc})"
        except Exception as exc:  # noqa: BLE001 - a broken preview must not crash the gate
            preview = None
            reason += f" (no preview: {type(exc).__name__})"
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
            return self._allow(call, "allowed by a PermissionRequest hook")
        self.hooks.notify(f"ValarMind needs your permission to use {call.tool.name}",
                          "permission_prompt")
        return None

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
