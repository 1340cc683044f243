"""The tables of the settings file: MCP servers, runner profiles, permission rules, hooks.

config.py assembles them into Settings; they live here so each file keeps one job.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

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
    agents: list[str] | None = None
    """Agents offered this server's tools (`["orchestrator", "code"]`); None: the orchestrator
    and the research agent."""
    sampling_timeout_s: float | None = None
    """Time limit of one answer to this server's sampling request; None: mcp.sampling_timeout_s."""
    tool_timeout_s: float | None = Field(default=None, gt=0)
    """Time limit of one call to this server's tools; None: mcp.tool_timeout_s."""


class McpSettings(_Section):
    """MCP client settings."""

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    """Servers by name; `.mcp.json` in the project adds more."""
    startup_timeout_s: float = 30.0
    """Time allowed for all servers to start in parallel."""
    serve_tool_timeout_s: float = Field(default=300.0, gt=0)
    """`valarmind mcp serve`: time limit of one tool call (raw tools too); `--tool-timeout`
    overrides it."""
    project_env: list[str] = Field(default_factory=list)
    """Environment variables a trusted project's servers may receive (`${VAR}` in `.mcp.json`,
    `env_passthrough`); nothing else of yours reaches them. User config only."""
    schema_share: float = Field(default=0.10, ge=0.0, le=1.0)
    """Share of the model's context window the servers' tool schemas may fill; above it agents
    see each tool's name and one line, and load a full schema with `mcp_tool_schema`."""
    sampling_timeout_s: float = Field(default=60.0, gt=0)
    """Time limit of one answer to a server's sampling request (the model's turn)."""
    tool_timeout_s: float = Field(default=120.0, gt=0)
    """Time limit of one call to a server's tool: then the call is cancelled (the server is
    told) and the model gets an error naming the limit. A server's own `tool_timeout_s` wins."""
    max_result_chars: int = Field(default=1_000_000, gt=0)
    """Characters of one tool answer the model gets; the rest is cut, and the answer says so."""
    max_message_mb: float = Field(default=16.0, gt=0)
    """A stdio server's message over this many MB is dropped unread (the call it answers
    gets an error naming the size)."""


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
    ask: list[str] = Field(default_factory=list)
    """Rules that always ask, whatever the mode and the allow rules (a deny rule still
    refuses): `bash(git push:*)`, `edit_file(migrations/**)`."""


HookEvent = Literal[
    "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit",
    "Stop", "SubagentStart", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact",
    "Notification", "Setup",
]
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
"""The hook events, named as in the Claude Code hooks format."""


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


class ReviewerSettings(_Section):
    """One model reviewer: off by default, with its own model and budget."""

    enabled: bool = False
    """Ask this reviewer at all."""
    model: str | None = None
    """Model alias or LiteLLM model string; the session's model when unset."""
    max_calls: int = Field(default=50, ge=0)
    """Reviews per session; past it the reviewer is skipped (as if off)."""
    max_tokens: int = Field(default=100_000, ge=0)
    """Tokens (in + out) per session; past it the reviewer is skipped (as if off)."""
    timeout_s: float = Field(default=60.0, gt=0)
    """One review's time limit; a review that takes longer counts as no opinion."""


class ReviewersSettings(_Section):
    """The model reviewers of seed 002 (user config only: a repository never sets them)."""

    tool_approve: ReviewerSettings = Field(default_factory=ReviewerSettings)
    """A second opinion before a person is asked: approves low-risk calls, denies clear
    mistakes, otherwise asks."""
    tool_appeal: ReviewerSettings = Field(default_factory=ReviewerSettings)
    """Hears an agent's appeal of a reviewer's or a deny rule's denial: OVERTURN or UPHOLD."""
    intent_check: ReviewerSettings = Field(default_factory=ReviewerSettings)
    """At Stop: did the answer do what was asked? If not, the agent continues once."""
    plan_validate: ReviewerSettings = Field(default_factory=ReviewerSettings)
    """On exit_plan_mode: does the plan do what was asked? A rejected plan goes back."""
    error_acknowledge: ReviewerSettings = Field(default_factory=ReviewerSettings)
    """After a failed tool call: does the agent's next message address the error?"""


class CheckpointSettings(_Section):
    """The shadow repository that /undo and /rewind read (user config only: a repository could
    otherwise throw away the checkpoints its own changes are undone from)."""

    keep_turns: int = Field(default=500, ge=1)
    """Turns kept per project (every session's together); older ones are pruned."""
    max_age_days: float = Field(default=30.0, gt=0)
    """Turns older than this are pruned."""
    max_file_bytes: int = Field(default=5 * 1024 * 1024, ge=0)
    """Files larger than this are noted in a checkpoint, not stored (undo says so)."""


def explained(root: type[BaseModel], kind: str, message: str, loc: tuple[Any, ...]) -> str:
    """pydantic's message, and for a key no setting of `root` (or its tables) has, the
    nearest ones that exist (`[modle]` -> did you mean `model`?)."""
    if kind != "extra_forbidden" or not loc:
        return message
    import difflib

    model: type[BaseModel] | None = root
    for part in loc[:-1]:
        field = model.model_fields.get(str(part)) if model is not None else None
        annotation = field.annotation if field is not None else None
        model = annotation if isinstance(annotation, type) and issubclass(
            annotation, BaseModel) else None
    if model is None:
        return f"unknown setting `{loc[-1]}`"
    near = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(f'`{n}`' for n in near)}?" if near else ""
    return f"unknown setting `{loc[-1]}`{hint}"
