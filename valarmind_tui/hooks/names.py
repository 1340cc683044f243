"""Tool names and arguments as hook scripts written for Claude Code expect them.

A script matches `Bash` or `Edit|Write` and reads `.tool_input.file_path`; our tools are `bash`,
`edit_file`, `write_file` with a `path`. Matchers match either name, the JSON carries Claude's,
and a hook's `updatedInput` is mapped back to ours.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

CLAUDE_NAMES = {
    "bash": "Bash", "edit_file": "Edit", "write_file": "Write", "read_file": "Read",
    "glob": "Glob", "grep": "Grep", "web_fetch": "WebFetch", "web_search": "WebSearch",
}
"""Our tool name → the name Claude Code's hook scripts match on."""
RENAMED_PARAMS = {
    "edit_file": {"path": "file_path"},
    "write_file": {"path": "file_path"},
    "read_file": {"path": "file_path"},
}
"""Per tool, our parameter name → Claude Code's, where they differ."""


def hook_tool_name(tool: str) -> str:
    """The name a hook sees: Claude's alias when there is one, else ours (`mcp__srv__tool`)."""
    return CLAUDE_NAMES.get(tool, tool)


def to_hook_input(
    tool: str, arguments: dict[str, Any], root: Path | None = None
) -> dict[str, Any]:
    """Our arguments with Claude Code's parameter names; with `root`, a `file_path` is made
    absolute as Claude Code sends it."""
    renames = RENAMED_PARAMS.get(tool, {})
    out = {renames.get(k, k): v for k, v in arguments.items()}
    path = out.get("file_path")
    if root is not None and isinstance(path, str) and path and not Path(path).is_absolute():
        out["file_path"] = str(root / path)
    return out


def from_hook_input(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A hook's `updatedInput` with our parameter names (either spelling is accepted)."""
    back = {theirs: ours for ours, theirs in RENAMED_PARAMS.get(tool, {}).items()}
    return {back.get(k, k): v for k, v in arguments.items()}


def matcher_matches(matcher: str, tool: str | None) -> bool:
    """Claude Code's matcher semantics: empty or `*` matches everything; otherwise a regex that
    must match the whole tool name (ours or its Claude alias). Events without a tool match
    every group. A matcher that is not a valid regex matches only its exact text."""
    if tool is None or matcher.strip() in ("", "*"):
        return True
    names = {tool, hook_tool_name(tool)}
    try:
        pattern = re.compile(matcher)
    except re.error:
        return matcher in names
    return any(pattern.fullmatch(name) for name in names)
