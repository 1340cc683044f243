"""MCP tool names made valid for OpenAI-style APIs (`^[a-zA-Z0-9_-]{1,64}$`)."""

from __future__ import annotations

import re

from valarmind_tui.mcp_client.tools import tool_name, unique_tool_name

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_plain_names_unchanged() -> None:
    assert tool_name("fs", "read_text_file") == "mcp__fs__read_text_file"


def test_other_characters_become_underscores() -> None:
    assert tool_name("my.server", "do.thing") == "mcp__my_server__do_thing"
    assert VALID.match(tool_name("sp ace/é", "wipe disk!"))


def test_long_names_cut_with_a_stable_hash() -> None:
    long_a, long_b = tool_name("s", "t" * 100), tool_name("s", "t" * 99 + "u")
    assert VALID.match(long_a) and len(long_a) == 64
    assert long_a != long_b and long_a == tool_name("s", "t" * 100)


def test_collisions_told_apart() -> None:
    taken: set[str] = set()
    first = unique_tool_name("a.b", "x", taken)
    second = unique_tool_name("a_b", "x", taken)
    assert first == "mcp__a_b__x" and second != first and VALID.match(second)
    assert taken == {first, second}
