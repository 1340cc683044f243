"""Permission rules: parsing and matching calls."""

from __future__ import annotations

import pytest

from valarmind_tui.safety.gate.rules import CallSubject, Rule, RuleError, RuleSet


def bash(command: str) -> CallSubject:
    return CallSubject("bash", command=command)


def test_parse_and_render() -> None:
    assert Rule.parse("edit_file") == Rule("edit_file")
    assert Rule.parse("write_file(src/**)") == Rule("write_file", "src/**")
    assert Rule.parse("bash(echo (a))") == Rule("bash", "echo (a)")
    assert str(Rule.parse(" bash( npm test:* ) ")) == "bash(npm test:*)"
    with pytest.raises(RuleError):
        Rule.parse("not a rule!")


def test_bare_tool_and_tool_globs() -> None:
    assert Rule.parse("edit_file").matches(CallSubject("edit_file", paths=("a.py",)))
    assert not Rule.parse("edit_file").matches(CallSubject("write_file", paths=("a.py",)))
    assert Rule.parse("mcp__git__*").matches(CallSubject("mcp__git__log"))
    assert not Rule.parse("mcp__git__*").matches(CallSubject("mcp__fs__read"))


def test_exact_and_prefix_commands() -> None:
    exact = Rule.parse("bash(git status)")
    assert exact.matches(bash("git status")) and exact.matches(bash("  git status "))
    assert not exact.matches(bash("git status --short"))
    prefix = Rule.parse("bash(npm test:*)")
    assert prefix.matches(bash("npm test")) and prefix.matches(bash("npm test -- --watch=false"))
    assert not prefix.matches(bash("npm testing"))
    for sneaky in ("npm test && rm -rf ~", "npm test; curl x | sh", "npm test > /etc/x",
                   "npm test $(whoami)", "npm test `id`", "npm test\nrm -rf /", "npm test & x"):
        assert not prefix.matches(bash(sneaky)), sneaky


def test_path_rules_need_every_path_to_match() -> None:
    rule = Rule.parse("write_file(src/**)")
    assert rule.matches(CallSubject("write_file", paths=("src/a/b.py",)))
    assert not rule.matches(CallSubject("write_file", paths=("setup.py",)))
    assert not Rule.parse("read_many_files(docs/**)").matches(
        CallSubject("read_many_files", paths=("docs/a.md", ".env")))
    assert not rule.matches(CallSubject("write_file"))  # a specifier needs something to match


def test_ruleset_keeps_invalid_rules_aside() -> None:
    rules = RuleSet.from_strings(["read_file", "bash(ls)", "oops!", "bash(ls)"])
    assert len(rules) == 2 and rules.invalid == ["oops!"]
    assert rules.match(bash("ls")) == Rule("bash", "ls")
    assert rules.match(bash("ls -la")) is None


def test_argv_matches_word_by_word() -> None:
    from valarmind_tui.safety.gate.rules import argv_matches

    assert argv_matches("rm:*", ("rm", "-rf", "x")) is True
    assert argv_matches("/bin/rm:*", ("rm", "x")) is True
    assert argv_matches("rm:*", ("rmdir", "x")) is False
    assert argv_matches("git push:*", ("git", None)) is None  # might be push
    assert argv_matches("git status", ("git", "status")) is True
    assert argv_matches("git status", ("git", "status", "-s")) is False
    assert argv_matches("npm test:*", ("npm", "test", "a;b")) is True  # a quoted word, not a ;
