"""What the rules and an agent's permissions say about one call (the gate decides with them).

A deny rule meets ANY simple command of a bash command; an allow rule must meet EVERY one, and
none answers a command with parts the parser cannot see. `RuleBook` holds one gate's rules.
"""

from __future__ import annotations

import fnmatch

from valarmind_tui.safety.gate.allowed_commands import allowed_by_prefix
from valarmind_tui.safety.gate.call import Call
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.rules import Rule, RuleSet, suggest_rule
from valarmind_tui.safety.paths import glob_match
from valarmind_tui.settings.config import PermissionSettings


def permission_refusal(call: Call, permissions: AgentPermissions) -> str | None:
    """Why the agent's permissions refuse the call (risk, write globs, allowed commands)."""
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
        commands = permissions.execute_allow
        if command is None or allowed_by_prefix(command, commands) is None:
            listed = "; ".join(commands) or "none"
            return (f"The {agent} agent may run only these commands: {listed} (with more "
                    "arguments after them, as one simple command: no ;, &&, pipes, "
                    "redirections or substitutions).")
    return None


def deny_rule_for(deny_rules: RuleSet, call: Call) -> Rule | None:
    """The deny (or ask) rule the call (or ANY simple command of its bash command) matches."""
    for rule in deny_rules.rules:
        if rule.matches(call.subject):
            return rule
        if call.parsed is not None and any(
            rule.matches_argv(call.tool.name, form) is True
            for c in call.parsed.commands for form in c.forms()
        ):
            return rule
    return None


def deny_rule_may_apply(deny_rules: RuleSet, call: Call) -> tuple[Rule, str] | None:
    """A deny rule that might apply to a command the parser cannot fully see, and why."""
    if call.parsed is None:
        return None
    for rule in deny_rules.rules:
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


def allow_rule_for(call: Call, *rulesets: RuleSet) -> Rule | None:
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


def suggested_rule(call: Call) -> str:
    """The allow rule offered to the person when the call asks."""
    return suggest_rule(call.tool.name, call.subject.command, call.subject.paths)


class RuleBook:
    """One gate's rules. `project` comes from the project's config (untrusted: it may allow,
    never unlock protected paths); `user` from the person's own config and `session` from
    their answers (both may name a protected path); deny and ask rules from both configs (an
    ask rule beats the allow rules and the mode; a deny rule beats it)."""

    def __init__(self, project: PermissionSettings, user: PermissionSettings) -> None:
        self.project = RuleSet.from_strings(project.allow)
        self.user = RuleSet.from_strings(user.allow)
        self.deny = RuleSet.from_strings([*user.deny, *project.deny])
        self.ask = RuleSet.from_strings([*user.ask, *project.ask])
        self.session = RuleSet()

    @property
    def invalid(self) -> list[str]:
        """The rules that could not be read (the gate warns about them)."""
        return self.project.invalid + self.user.invalid + self.deny.invalid + self.ask.invalid

    def denied_by(self, call: Call) -> Rule | None:
        return deny_rule_for(self.deny, call)

    def asked_by(self, call: Call) -> Rule | None:
        """The ask rule the call (or any simple command of it) matches."""
        return deny_rule_for(self.ask, call)

    def deny_may_apply(self, call: Call) -> tuple[Rule, str] | None:
        """A deny rule the person must rule on: one an appeal overturned for this very call, or
        one the parser cannot rule out."""
        if call.appealed_rule is not None:
            return call.appealed_rule, (f"the deny rule {call.appealed_rule} refuses it; an "
                                        "appeal asks you to decide")
        return deny_rule_may_apply(self.deny, call)

    def allows(self, call: Call) -> Rule | None:
        """The allow rule (session, user or project) that answers the call's ask."""
        return allow_rule_for(call, self.session, self.user, self.project)

    def person_allows(self, call: Call) -> Rule | None:
        """A rule of the person's own (user config or this session) that names what the call
        touches: a bare tool name does not unlock protected paths."""
        rule = allow_rule_for(call, self.session, self.user)
        return rule if rule is not None and rule.spec is not None else None
