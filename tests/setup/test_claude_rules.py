"""Claude Code's permission rules, each spelling of its documentation, in our syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from valarmind_tui.setup.claude_rules import translate_rule

ROOT, HOME = Path("/work/project"), Path("/home/ana")


@pytest.mark.parametrize(("claude", "ours"), [
    ("Bash", ("bash",)),
    ("Bash(npm run test:*)", ("bash(npm run test:*)",)),
    ("Bash(git *)", ("bash(git:*)",)),
    ("Bash(make lint)", ("bash(make lint)",)),
    ("Read", ("read_*",)),
    ("Read(./.env)", ("read_*(.env)",)),
    ("Read(.env)", ("read_*(**/.env)",)),
    ("Edit(src/**)", ("edit_file(src/**)", "write_file(src/**)")),
    ("Write(docs/*.md)", ("write_file(docs/*.md)",)),
    ("Read(//etc/hosts)", ("read_*(/etc/hosts)",)),
    ("Read(~/.zshrc)", ("read_*(/home/ana/.zshrc)",)),
    ("Edit(/src/**/*.ts)", ("edit_file(src/**/*.ts)", "write_file(src/**/*.ts)")),
    ("Read(//work/project/app.py)", ("read_*(app.py)",)),
    ("WebFetch", ("web_fetch",)),
    ("WebFetch(domain:Example.com)", ("web_fetch(domain:example.com)",)),
    ("mcp__github", ("mcp__github__*",)),
    ("mcp__github__create_issue", ("mcp__github__create_issue",)),
    ("Glob", ("glob",)),
    ("Grep", ("grep",)),
    ("WebSearch", ("web_search",)),
])
def test_each_spelling_becomes_our_rules(claude: str, ours: tuple[str, ...]) -> None:
    translated = translate_rule(claude, ROOT, ROOT, HOME)
    assert translated.rules == ours, translated.reason


@pytest.mark.parametrize(("claude", "why"), [
    ("Bash(git * --force)", "a `*` inside a command"),
    ("WebSearch(fastapi)", "WebSearch takes no argument"),
    ("Task(Explore)", "no Task tool"),
    ("Frobnicate(x)", "unknown tool 'Frobnicate'"),
    ("WebFetch(https://x.org)", "only `domain:host`"),
    ("Bash(unclosed", "not a rule"),
])
def test_a_rule_we_cannot_say_is_left_out_with_the_reason(claude: str, why: str) -> None:
    translated = translate_rule(claude, ROOT, ROOT, HOME)
    assert translated.rules == ()
    assert why in translated.reason


def test_the_users_slash_paths_are_under_the_home() -> None:
    """In ~/.claude/settings.json, `/x` is under the folder holding `.claude/`: the home."""
    assert translate_rule("Read(/notes/**)", ROOT, HOME, HOME).rules == (
        "read_*(/home/ana/notes/**)",)
