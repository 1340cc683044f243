"""The `[images]` and `[search]` tables: what the model is shown and how it searches the web."""

from __future__ import annotations

from pydantic import Field

from valarmind_tui.settings.sections import _Section


class ImageSettings(_Section):
    """`[images]`: images in prompts and tool results."""

    vision: bool | None = None
    """Whether the model reads images; None asks LiteLLM's model information (say true for a
    local vision model it does not know)."""


class SearchSettings(_Section):
    """`[search]`: the `web_search` tool. User config only."""

    backend: str = "auto"
    """`auto` (the model's own search where its provider has one, else `mcp_tool`), `model`,
    `mcp` or `off`."""
    model: str | None = None
    """The model that searches; None: the session's model (for OpenAI a search model,
    `openai/gpt-4o-mini-search-preview`, when the session's has no search of its own)."""
    mcp_tool: str | None = None
    """A search tool of one of your MCP servers, `mcp__<server>__<tool>`; it is called with
    `{"query": ...}`."""
    ttl_hours: float = Field(default=24.0, ge=0)
    """How long a search's results are reused (seed 001: 24 h)."""
    docs_ttl_hours: float = Field(default=168.0, ge=0)
    """For documentation searches (seed 001: 7 days)."""
    advisory_ttl_hours: float = Field(default=1.0, ge=0)
    """For CVE and advisory searches (seed 001: 1 h)."""
