"""Where a web search goes: the model's own provider search, else the search tool of an MCP
server the person configured (`[search] mcp_tool`), else nowhere (the tool says so). Results
are cached by seed 001's rules (search_cache.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from valarmind_tui.providers.web_search import (
    FoundSource,
    SearchCall,
    provider_search,
    search_family,
    searching_model,
    sources_in_text,
)
from valarmind_tui.settings.senses import SearchSettings
from valarmind_tui.tools.result import ToolResult
from valarmind_tui.tools.web import search_cache
from valarmind_tui.tools.web.search_cache import CachedSearch
from valarmind_tui.tools.web.sources import Source, classify

McpCall = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""Calls an MCP tool by its full name (`mcp__server__tool`) with arguments."""


class SearchUnavailable(Exception):
    """No backend can search, or the one chosen failed; the message says which and why."""


@dataclass(frozen=True)
class SearchOutcome:
    """A search's answer as the tool reports it."""

    backend: str
    """Who searched: `anthropic search (anthropic/claude-…)` or the MCP tool's name."""
    text: str
    sources: list[Source]
    at: float
    cached: bool


@dataclass
class WebSearcher:
    """The session's web search (ToolServices.web_search)."""

    settings: SearchSettings
    model_search: Callable[[], SearchCall | None]
    """The session's model and how to reach it, now (None: no LiteLLM model)."""
    call_mcp: McpCall | None = None

    def _backend(self) -> tuple[str, SearchCall | None]:
        choice = self.settings.backend
        if choice == "off":
            raise SearchUnavailable("Web search is off ([search] backend = \"off\").")
        call = self.model_search() if choice in ("auto", "model") else None
        if call is not None and search_family(searching_model(call)) is not None:
            family = search_family(searching_model(call))
            return f"{family} search ({searching_model(call)})", call
        tool = self.settings.mcp_tool
        if choice in ("auto", "mcp") and tool and self.call_mcp is not None:
            return tool, None
        model = call.model if call is not None else "this model"
        raise SearchUnavailable(
            f"No web search is available: {model} has no search of its own and no search MCP "
            "tool is configured ([search] mcp_tool = \"mcp__<server>__<tool>\"). Use web_fetch "
            "on URLs you know, or say plainly that you could not search.")

    async def search(self, query: str) -> SearchOutcome:
        """Results for `query`, from the cache while they are young enough."""
        backend, call = self._backend()
        kept = search_cache.cached(backend, query)
        if kept is not None:
            return SearchOutcome(backend, kept.text, kept.sources, kept.at, cached=True)
        if call is not None:
            try:
                answer = await provider_search(call, query)
            except Exception as exc:  # noqa: BLE001 - LiteLLM's errors, reported to the model
                raise SearchUnavailable(f"{backend} failed: {type(exc).__name__}: "
                                        f"{str(exc)[:300]}") from None
            text, found = answer.text, answer.sources
        else:
            text, found = await self._mcp(backend, query)
        sources = [classify(s.url, s.title, s.date) for s in found]
        result = CachedSearch(text, sources, time.time())
        search_cache.store(backend, query, result, self.settings)
        return SearchOutcome(backend, text, sources, result.at, cached=False)

    async def _mcp(self, tool: str, query: str) -> tuple[str, list[FoundSource]]:
        assert self.call_mcp is not None
        result = await self.call_mcp(tool, {"query": query})
        if result.is_error:
            raise SearchUnavailable(f"{tool} failed: {result.output[:300]}")
        return result.output, mcp_sources(result.output, result.data)


def mcp_sources(output: str, data: Any) -> list[FoundSource]:
    """Sources from a search server's answer: structured results (`url`, `title`, a date)
    when it gave them, else the links in its text."""
    items = data if isinstance(data, list) else None
    if isinstance(data, dict):
        items = next((v for v in data.values() if isinstance(v, list)), None)
    if items is None:
        try:
            parsed = json.loads(output)
        except ValueError:
            parsed = None
        items = parsed if isinstance(parsed, list) else (
            next((v for v in parsed.values() if isinstance(v, list)), None)
            if isinstance(parsed, dict) else None)
    found = [FoundSource(str(i.get("url") or i.get("link") or ""), str(i.get("title") or ""),
                         i.get("date") or i.get("published_date") or i.get("published"))
             for i in items or [] if isinstance(i, dict)]
    return [s for s in found if s.url] or sources_in_text(output)
