"""Allow and deny rules: `edit_file`, `write_file(src/**)`, `bash(git status)`, `bash(npm test:*)`.

A rule names a tool (a glob over tool names, so `mcp__git__*` works) and optionally a specifier:
for bash the command (exact, or a prefix ending in `:*`), for tools with path params a glob over
the project-relative path (every path of the call must match), for web_fetch `domain:host`
(the host or a subdomain of it; `*.host` as a glob). A bare tool name matches every call of
that tool.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from valarmind_tui.safety.paths import glob_match

_RULE = re.compile(r"^\s*([A-Za-z0-9_*?\-.\[\]]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
# A prefix rule must not let `npm test && rm -rf ~` through because it starts with `npm test`.
_SHELL_META = re.compile(r"[;&|`<>\n\r]|\$\(")


class RuleError(ValueError):
    """A rule string that cannot be parsed."""


@dataclass(frozen=True)
class CallSubject:
    """What rules look at in a tool call."""

    tool: str
    command: str | None = None
    """The bash command, for execute tools."""
    paths: tuple[str, ...] = ()
    """Project-relative paths of the call's path params."""
    domain: str | None = None
    """The host a web call reaches (lower case)."""


@dataclass(frozen=True)
class Rule:
    tool: str
    spec: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE.match(text)
        if match is None:
            raise RuleError(f"not a permission rule: {text!r} (expected `tool` or `tool(spec)`)")
        spec = match.group(2)
        return cls(match.group(1), spec.strip() if spec is not None and spec.strip() else None)

    def __str__(self) -> str:
        return self.tool if self.spec is None else f"{self.tool}({self.spec})"

    def matches_argv(self, tool: str, argv: Sequence[str | None]) -> bool | None:
        """Does this rule match one simple command of a bash call (None: it might)?"""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        return True if self.spec is None else argv_matches(self.spec, argv)

    def matches(self, call: CallSubject) -> bool:
        if not fnmatch.fnmatchcase(call.tool, self.tool):
            return False
        if self.spec is None:
            return True
        if self.spec.startswith("domain:"):
            return call.domain is not None and domain_matches(self.spec[7:], call.domain)
        if call.command is not None:
            return command_matches(self.spec, call.command)
        if call.paths:
            return all(glob_match(self.spec, p) for p in call.paths)
        return False


def argv_matches(spec: str, argv: Sequence[str | None]) -> bool | None:
    """`command_matches` for one simple command already split into words (see safety.shell):
    True, False, or None when a word the spec compares is an expansion (it might match).

    The program is compared by base name, so `rm:*` matches `/bin/rm -rf x`."""
    prefix = spec.endswith(":*")
    try:
        words = shlex.split(spec[:-2] if prefix else spec)
    except ValueError:
        return False
    if not words or not argv:
        return False
    words[0] = posixpath.basename(words[0]) or words[0]
    if len(argv) < len(words) or (not prefix and len(argv) != len(words)):
        return False
    unknown = False
    for want, got in zip(words, argv, strict=False):
        if got is None:
            unknown = True
        elif got != want:
            return False
    return None if unknown else True


def domain_matches(spec: str, host: str) -> bool:
    """`example.com` matches it and its subdomains; `*.example.com` only the subdomains."""
    spec = spec.strip().lower().rstrip(".")
    host = host.lower().rstrip(".")
    if "*" in spec:
        return fnmatch.fnmatchcase(host, spec)
    return host == spec or host.endswith("." + spec)


def command_matches(spec: str, command: str) -> bool:
    """`git status` matches exactly that command; `npm test:*` any command starting with
    `npm test` (as a whole word) that does not chain, pipe, redirect or substitute."""
    command = command.strip()
    if spec.endswith(":*"):
        prefix = spec[:-2].strip()
        if _SHELL_META.search(command):
            return False
        return command == prefix or command.startswith(prefix + " ")
    return command == spec.strip()


@dataclass
class RuleSet:
    """An ordered set of rules; invalid rule strings are kept aside in `invalid`."""

    rules: list[Rule] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)

    @classmethod
    def from_strings(cls, texts: Iterable[str]) -> RuleSet:
        ruleset = cls()
        for text in texts:
            try:
                ruleset.add(Rule.parse(text))
            except RuleError:
                ruleset.invalid.append(text)
        return ruleset

    def add(self, rule: Rule) -> None:
        if rule not in self.rules:
            self.rules.append(rule)

    def match(self, call: CallSubject) -> Rule | None:
        return next((r for r in self.rules if r.matches(call)), None)

    def __len__(self) -> int:
        return len(self.rules)


def suggest_rule(tool: str, command: str | None, paths: Sequence[str]) -> str:
    """The rule "always allow" would remember for this call: the exact command for bash, the
    bare tool name otherwise (sensitive paths keep asking whatever the rules say)."""
    if command is not None:
        return str(Rule(tool, command.strip())) if "(" not in command else tool + f"({command})"
    return tool
