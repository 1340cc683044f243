"""The session's WebSearcher: its model's provider search (reached like its model: the same
endpoint and key), or the MCP search tool named in `[search] mcp_tool`."""

from __future__ import annotations

from typing import Any

from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.mcp_client.tools import McpTool
from valarmind_tui.providers.web_search import SearchCall
from valarmind_tui.session.model_choice import ModelChoice
from valarmind_tui.settings.config import Settings
from valarmind_tui.tools.registry import ToolRegistry
from valarmind_tui.tools.result import ToolResult
from valarmind_tui.tools.web.searcher import WebSearcher


def web_searcher(settings: Settings, models: ModelChoice, mcp: McpManager,
                 tools: ToolRegistry) -> WebSearcher:
    search = settings.search

    def model_search() -> SearchCall | None:
        try:
            models.provider()
        except ValarMindError:  # no model or no key: the MCP tool may still search
            return None
        config = models.config
        if config is None:
            return None
        other = search.model is not None and _prefix(search.model) != _prefix(config.model)
        return SearchCall(model=config.model, search_model=search.model,
                          api_base=None if other else config.api_base,
                          api_key=None if other else config.resolved_key(),
                          timeout_s=min(config.timeout_s, 120.0))

    async def call_mcp(name: str, arguments: dict[str, Any]) -> ToolResult:
        tool = tools.get(name)
        if not isinstance(tool, McpTool):
            return ToolResult.error(f"{name} is not a tool of a running MCP server ([search] "
                                    "mcp_tool); /mcp lists them.")
        return await mcp.call_tool(tool.server, tool.mcp_name, arguments)

    return WebSearcher(search, model_search, call_mcp)


def _prefix(model: str) -> str:
    return model.split("/", 1)[0]
