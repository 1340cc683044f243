"""The permission gate: every tool call passes one pipeline before it runs (seed 002).

    deny rules → agent permissions → path check → mode → allow rules → Approver

- deny rules (project config) refuse whatever the mode;
- agent permissions refuse a tool whose risk the agent was not granted (and narrow writes to
  `write_globs`, commands to `execute_allow`);
- a path outside the project is refused; a sensitive path (`.env`, keys...) always asks, even in
  bypass and accept-edits, and no remembered rule answers for it;
- the mode: plan lets only reads through, bypass everything, accept-edits writes in the project,
  default reads only;
- allow rules remembered for the session (in memory) or the project (config) answer "ask";
- otherwise the Approver (TUI modal, REPL prompt, headless policy) decides.

Three similar denied attempts (same tool, similar arguments) raise DenialEscalated. PreToolUse
hooks and the bash sandbox come later; they slot in before the deny rules and inside bash.
The gate knows tools only by shape (GatedTool): safety sits below tools in the layers.
"""

from __future__ import annotations

import contextlib
import shlex
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from valarmind_tui.bus import EventBus
from valarmind_tui.config import PermissionSettings
from valarmind_tui.errors import DenialEscalated, PathOutsideProject, ToolError
from valarmind_tui.events import Notice
from valarmind_tui.safety.approval import ApprovalRequest, Approver, PermissionMode
from valarmind_tui.safety.paths import glob_match, is_sensitive, relative, resolve_in_project
from valarmind_tui.safety.permissions import AgentPermissions
from valarmind_tui.safety.rules import CallSubject, Rule, RuleSet, suggest_rule

ESCALATE_AFTER = 3
# delegate passes: the Delegator itself refuses specialists that write or execute in plan mode.
PLAN_MODE_TOOLS = ("task_*", "exit_plan_mode", "delegate")


class GatedTool(Protocol):
    """What the gate needs of a tool (tools.base.Tool has it)."""

    name: str
    risk: Any
    path_params: tuple[str, ...]

    async def preview(self, params: Any, ctx: Any) -> Any: ...


@dataclass(frozen=True)
class GateDecision:
    allowed: bool
    reason: str = ""
    feedback: str | None = None
    """What the person said when denying; goes back to the model."""


@dataclass
class _Call:
    """One tool call as the gate sees it."""

    tool: GatedTool
    risk: str
    agent_id: str
    subject: CallSubject
    outside: str | None = None
    sensitive: tuple[str, ...] = ()
    signature: tuple[str, ...] = field(default_factory=tuple)


class PermissionGate:
    """Decides, for each tool call, allow or deny, asking the Approver when the pipeline says so."""

    def __init__(
        self, project_root: Path, approver: Approver, *,
        mode: PermissionMode = PermissionMode.DEFAULT, rules: PermissionSettings | None = None,
        on_remember: Callable[[str], None] | None = None, bus: EventBus | None = None,
    ) -> None:
        self.project_root = Path(project_root).resolve()
        self.approver = approver
        self.mode = PermissionMode(mode)
        settings = rules or PermissionSettings()
        self.project_rules = RuleSet.from_strings(settings.allow)
        self.deny_rules = RuleSet.from_strings(settings.deny)
        self.session_rules = RuleSet()
        self.on_remember = on_remember
        self.bus = bus
        self._denials: Counter[tuple[str, ...]] = Counter()
        for text in self.project_rules.invalid + self.deny_rules.invalid:
            self._notice("warning", f"Ignored an invalid permission rule: {text!r}")

    # -- the pipeline -------------------------------------------------------------------
    async def check(
        self, tool: GatedTool, params: Any, ctx: Any, permissions: AgentPermissions
    ) -> GateDecision:
        """Allow or deny one call; raises DenialEscalated on the third similar denial."""
        call = self._describe(tool, params, ctx)
        refusal = self._refusal(call, permissions)
        if refusal is not None:
            return self._deny(call, refusal)
        if call.sensitive:
            reason = f"{', '.join(call.sensitive)} may hold secrets"
            return await self._ask(call, params, ctx, reason, rule="")
        verdict = self._by_mode(call)
        if verdict is not None:
            return self._allow(call, verdict)
        rule = self.session_rules.match(call.subject) or self.project_rules.match(call.subject)
        if rule is not None:
            return self._allow(call, f"allowed by the rule {rule}")
        reason = {"write": f"{tool.name} changes files", "execute": "runs a command",
                  "web": "uses the network"}.get(call.risk, f"{call.risk} tool")
        suggestion = suggest_rule(tool.name, call.subject.command, call.subject.paths)
        return await self._ask(call, params, ctx, reason, rule=suggestion)

    def _refusal(self, call: _Call, permissions: AgentPermissions) -> str | None:
        """Why the call is refused outright (deny rule, agent permission, path, plan mode)."""
        denied_by = self.deny_rules.match(call.subject)
        if denied_by is not None:
            return f"{call.tool.name} is blocked by the deny rule {denied_by}."
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

    def _permission_refusal(self, call: _Call, permissions: AgentPermissions) -> str | None:
        agent, name = call.agent_id, call.tool.name
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
            allowed_commands = {c.strip() for c in permissions.execute_allow}
            if command is None or command.strip() not in allowed_commands:
                listed = "; ".join(permissions.execute_allow) or "none"
                return f"The {agent} agent may run only these commands: {listed}."
        return None

    def _by_mode(self, call: _Call) -> str | None:
        """The reason a call passes by mode alone, None when it must go on to rules and asking."""
        if self.mode is PermissionMode.BYPASS:
            return "bypass mode"
        if call.risk in ("read", "spawn") or any(
            glob_match(p, call.tool.name) for p in PLAN_MODE_TOOLS
        ):
            return f"{call.risk} tool"
        if self.mode is PermissionMode.ACCEPT_EDITS and call.risk == "write":
            return "accept-edits mode allows writes inside the project"
        return None

    # -- asking -------------------------------------------------------------------------
    async def _ask(
        self, call: _Call, params: Any, ctx: Any, reason: str, *, rule: str
    ) -> GateDecision:
        try:
            preview = await call.tool.preview(params, ctx)
        except ToolError as exc:
            preview = None
            reason += f" (preview failed: {exc})"
        request = ApprovalRequest(
            request_id=uuid.uuid4().hex[:12], agent_id=call.agent_id, tool=call.tool.name,
            summary=getattr(preview, "summary", None) or f"{call.tool.name}",
            reason=reason, diff=getattr(preview, "diff", None),
            command=getattr(preview, "command", None) or call.subject.command,
            cwd=getattr(preview, "cwd", None),
            path=call.subject.paths[0] if call.subject.paths else None, rule=rule,
        )
        answer = await self.approver.request(request)
        if not answer.allowed:
            return self._deny(call, "The person denied this call.", answer.feedback)
        if answer.decision in ("allow_session", "allow_project") and rule:
            self.remember(rule, project=answer.decision == "allow_project")
        return self._allow(call, "approved")

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
    def _allow(self, call: _Call, reason: str) -> GateDecision:
        self._denials.pop(call.signature, None)
        return GateDecision(True, reason)

    def _deny(self, call: _Call, reason: str, feedback: str | None = None) -> GateDecision:
        self._denials[call.signature] += 1
        if self._denials[call.signature] >= ESCALATE_AFTER:
            self._denials.pop(call.signature, None)
            raise DenialEscalated(
                f"Stopped: {ESCALATE_AFTER} similar attempts to use {call.tool.name} were "
                f"denied (last reason: {reason}"
                + (f" Feedback: {feedback}" if feedback else "")
                + "). The person needs to decide how to go on."
            )
        return GateDecision(False, reason, feedback)

    def reset_denials(self) -> None:
        """Forget denial counts (a new prompt from the person starts afresh)."""
        self._denials.clear()

    def _notice(self, level: str, message: str) -> None:
        if self.bus is not None:
            self.bus.publish(Notice(level=level, message=message))  # type: ignore[arg-type]

    def _describe(self, tool: GatedTool, params: Any, ctx: Any) -> _Call:
        risk = str(getattr(tool.risk, "value", tool.risk))
        agent_id = getattr(ctx, "agent_id", "main")
        paths: list[str] = []
        outside = None
        for value in _path_values(tool, params):
            try:
                resolved = resolve_in_project(self.project_root, value)
                paths.append(relative(self.project_root, resolved))
            except PathOutsideProject as exc:
                outside = str(exc)
        command = getattr(params, "command", None) if risk == "execute" else None
        command = command if isinstance(command, str) else None
        subject = CallSubject(tool.name, command, tuple(paths))
        sensitive = tuple(p for p in paths if is_sensitive(p))
        return _Call(tool, risk, agent_id, subject, outside, sensitive,
                     _signature(agent_id, tool.name, command, paths))


def _path_values(tool: GatedTool, params: Any) -> list[str]:
    values: list[str] = []
    for name in getattr(tool, "path_params", ()):
        value = getattr(params, name, None)
        if isinstance(value, str | Path):
            values.append(str(value))
        elif isinstance(value, list | tuple):
            values += [str(v) for v in value if isinstance(v, str | Path)]
    return values


def _signature(agent: str, tool: str, command: str | None, paths: list[str]) -> tuple[str, ...]:
    """Calls count as similar when they share the tool and the command's verb or the paths."""
    if command is not None:
        with contextlib.suppress(ValueError):
            words = shlex.split(command)
            verb = words[:1] + [w for w in words[1:2] if not w.startswith("-")]
            return (agent, tool, *verb)
        return (agent, tool, *command.split()[:1])
    return (agent, tool, *sorted(paths))
