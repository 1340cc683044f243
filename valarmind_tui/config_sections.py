"""The tables of the settings file: MCP servers, runner profiles, permission rules, hooks.

config.py assembles them into Settings; they live here so each file keeps one job.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class McpServerConfig(_Section):
    """One MCP server: a stdio command or a streamable-HTTP url."""

    command: str | None = None
    """Executable to start (stdio)."""
    args: list[str] = Field(default_factory=list)
    """Arguments for the command."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment set for the server (values given here, not inherited)."""
    env_passthrough: list[str] = Field(default_factory=list)
    """Names of our environment variables the server may see, beyond HOME, PATH, USER, NODE_PATH."""
    tool_allowlist: list[str] | None = None
    """Only these tools are exposed; None exposes all."""
    url: str | None = None
    """Streamable HTTP endpoint instead of a command."""
    timeout_s: float = 30.0
    """How long start-up may take before the server is reported failed."""


class McpSettings(_Section):
    """MCP client settings."""

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    """Servers by name; `.mcp.json` in the project adds more."""
    startup_timeout_s: float = 30.0
    """Time allowed for all servers to start in parallel."""
    serve_tool_timeout_s: float = Field(300.0, gt=0)
    """`valarmind mcp serve`: time limit of one tool call (raw tools too); `--tool-timeout`
    overrides it."""
    project_env: list[str] = Field(default_factory=list)
    """Environment variables a trusted project's servers may receive (`${VAR}` in `.mcp.json`,
    `env_passthrough`); nothing else of yours reaches them. User config only."""


class AgentProfile(_Section):
    """A headless runner profile (seed 000): `valarmind run --agent NAME`."""

    model: str | None = None
    """LiteLLM model string; the global model when unset."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible or Anthropic endpoint."""
    api_key_env: str | None = None
    """Environment variable holding the key."""
    max_turns: int = 50
    """Turns before the output is marked INCOMPLETE."""
    mcp_servers: list[str] = Field(default_factory=list)
    """Names of MCP servers this profile starts."""
    tool_overrides: dict[str, list[str]] = Field(default_factory=dict)
    """Per-server tool lists that replace that server's allowlist."""
    tools: list[str] | None = None
    """Built-in tools the profile may use; default read-only tools."""


class PermissionSettings(_Section):
    """Remembered rules."""

    allow: list[str] = Field(default_factory=list)
    """Rules like `edit_file`, `bash(git status)`, `write_file(src/**)` allowed without asking."""
    deny: list[str] = Field(default_factory=list)
    """Rules always refused, whatever the mode."""


HOOK_EVENTS = (
    "PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact", "Notification",
)
"""The hook events, named as in the Claude Code hooks format."""
HookEvent = Literal[
    "PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact", "Notification",
]


class HookHandler(_Section):
    """One hook handler: a shell command run with the event's JSON on stdin."""

    type: Literal["command"] = "command"
    """Only `command` handlers are supported."""
    command: str
    """Run with `bash -c` in the project folder."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds before the command is killed and reported; 60 when unset."""


class HookMatcher(_Section):
    """A group of handlers for one event, chosen by a regex on the tool name."""

    matcher: str = ""
    """Full-match regex on the tool name (`Bash`, `Edit|Write`, `mcp__github__.*`); empty or
    `*` matches every tool. Ignored by events without tools (UserPromptSubmit, Stop...)."""
    hooks: list[HookHandler] = Field(default_factory=list)
    """The handlers run, in parallel, when the matcher matches."""


HooksTable = dict[HookEvent, list[HookMatcher]]
