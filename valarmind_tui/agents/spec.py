"""An agent definition: front matter plus a system prompt (agents are data)."""

from __future__ import annotations

from dataclasses import dataclass, field

from valarmind_tui.safety.gate.permissions import AgentPermissions


@dataclass(frozen=True)
class AgentSpec:
    """One agent, as loaded from `agents/builtin/<name>.md` or a user override."""

    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] = ("*",)
    """Tool names or glob patterns the agent may use."""
    permissions: AgentPermissions = field(default_factory=AgentPermissions)
    timeout_s: float = 300.0
    max_timeout_s: float = 900.0
    model: str | None = None
    """Model or alias; the session's model when None."""
    max_turns: int = 50
    exclude_project_context: bool = False
    source: str = "builtin"
    """Where the definition came from (builtin, project, user, profile)."""
    result: str | None = None
    """Name of the structured result the agent returns (SearchResult, ReviewResult...)."""
    model_suffix: str | None = None
    """Appended to OpenRouter models (`:online` gives the research agent web search)."""
    api_base: str | None = None
    """Endpoint of a runner profile with its own provider (seed 000)."""
    api_key_env: str | None = None
    """Environment variable with that endpoint's key."""
    path: str | None = None
    """The file the definition was read from."""
    skills: tuple[str, ...] | None = None
    """The skills listed in its prompt when its file names some (Claude's `skills`); None:
    all of them when it has the `skill` tool."""

    @property
    def read_only(self) -> bool:
        """Neither writes nor runs commands: may run in parallel with others."""
        return not (self.permissions.write or self.permissions.execute)
