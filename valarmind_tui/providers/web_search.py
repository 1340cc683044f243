"""A web search by the model's own provider, through LiteLLM (one call, not streamed).

What goes on the wire, by provider family (LiteLLM 1.106):
- openai: chat completions with `web_search_options`; only OpenAI's search models take it, so
  another OpenAI model searches through `openai/gpt-4o-mini-search-preview` ([search] model).
- anthropic: `web_search_options`, which LiteLLM sends as the server tool
  `{"type": "web_search_20250305", "name": "web_search", "max_uses": N}`.
- gemini / vertex_ai: `web_search_options`, sent as the `googleSearch` tool.
- perplexity: `web_search_options` (its models search anyway).
- xai: the Responses API with the `web_search` tool (LiteLLM drops `web_search_options` on
  xAI's chat completions: Live Search is gone).
- openrouter: the model with `:online` appended.
Any other model has no search of its own: `search_family` says None.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.providers.io_thread import io_loop
from valarmind_tui.providers.litellm_call import load_litellm_async
from valarmind_tui.providers.process import client as model_process

OPENAI_SEARCH_MODEL = "openai/gpt-4o-mini-search-preview"
SEARCH_OPTIONS = {"search_context_size": "medium"}
INSTRUCTIONS = (
    "Search the web for the query below. Answer in a few sentences, then list every source you "
    "used as a Markdown link, one a line: - [title](url) (date if known).")
_FAMILIES = {"openai": "openai", "anthropic": "anthropic", "gemini": "gemini",
             "vertex_ai": "gemini", "xai": "xai", "perplexity": "perplexity",
             "openrouter": "openrouter"}
_LINK = re.compile(r"\[([^\]\n]{1,300})\]\((https?://[^\s)]+)\)(?:\s*\(([^)\n]{4,40})\))?")
_BARE_URL = re.compile(r"(?<![(\[])https?://[^\s)\]>\"']+")


@dataclass(frozen=True)
class FoundSource:
    """A source the search gave: its URL, and a title and date when the provider said."""

    url: str
    title: str = ""
    date: str | None = None


@dataclass(frozen=True)
class SearchAnswer:
    """What the provider's search returned: its summary and its sources."""

    text: str
    sources: list[FoundSource] = field(default_factory=list)
    model: str = ""


@dataclass(frozen=True)
class SearchCall:
    """Where a search goes: the model (the session's) and how to reach it."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    search_model: str | None = None
    """`[search] model`: the model that searches instead."""
    timeout_s: float = 60.0


def search_family(model: str) -> str | None:
    """The provider family whose own search a model has, or None."""
    return _FAMILIES.get(model.split("/", 1)[0]) if "/" in model else None


def searching_model(call: SearchCall) -> str:
    """The model that runs the search for `call`."""
    if call.search_model:
        return call.search_model
    model = call.model
    family = search_family(model)
    if family == "openai" and "search" not in model:
        return OPENAI_SEARCH_MODEL
    if family == "openrouter" and not model.endswith(":online"):
        return model + ":online"
    return model


def request_kwargs(call: SearchCall, query: str) -> dict[str, Any]:
    """The LiteLLM keyword arguments of the search (`input` for xAI's Responses API)."""
    model = searching_model(call)
    family = search_family(model)
    kwargs: dict[str, Any] = {"model": model, "timeout": call.timeout_s, "num_retries": 0,
                              "drop_params": True}  # a Perplexity model LiteLLM does not know
    if call.api_base:
        kwargs["api_base"] = call.api_base
    if call.api_key:
        kwargs["api_key"] = call.api_key
    if family == "xai":
        return {**kwargs, "input": f"{INSTRUCTIONS}\n\nQuery: {query}",
                "tools": [{"type": "web_search"}]}
    kwargs["messages"] = [{"role": "system", "content": INSTRUCTIONS},
                          {"role": "user", "content": query}]
    if family in ("openai", "anthropic", "gemini", "perplexity"):
        kwargs["web_search_options"] = dict(SEARCH_OPTIONS)
    return kwargs


async def provider_search(call: SearchCall, query: str) -> SearchAnswer:
    """Search through the model's provider: in the model process when the face started one
    (litellm stays out of the TUI's process), else on the model-io thread. Raises what LiteLLM
    raises, or ProviderError from the model process (the caller reports either)."""
    kwargs = request_kwargs(call, query)
    process = model_process.running()
    if process is not None:
        found = await asyncio.to_thread(process.call, "web_search", call.timeout_s + 5,
                                        kwargs=kwargs)
        return answer_from_dict(found)
    future = asyncio.run_coroutine_threadsafe(search_here(kwargs), io_loop())
    return await asyncio.wrap_future(future)


def answer_to_dict(answer: SearchAnswer) -> dict[str, Any]:
    return {"text": answer.text, "model": answer.model,
            "sources": [[s.url, s.title, s.date] for s in answer.sources]}


def answer_from_dict(data: dict[str, Any]) -> SearchAnswer:
    return SearchAnswer(str(data["text"]), [FoundSource(*s) for s in data["sources"]],
                        str(data["model"]))


async def search_here(kwargs: dict[str, Any]) -> SearchAnswer:
    """The search call with litellm imported in this process."""
    litellm = await load_litellm_async()
    if "input" in kwargs:
        response = await litellm.aresponses(**kwargs)
        text, sources = _from_responses(response)
    else:
        response = await litellm.acompletion(**kwargs)
        text, sources = _from_chat(response)
    return SearchAnswer(text, _merged(sources + sources_in_text(text)), kwargs["model"])


def _from_chat(response: Any) -> tuple[str, list[FoundSource]]:
    message = response.choices[0].message
    text = message.content or ""
    sources = [_annotation(a) for a in getattr(message, "annotations", None) or []]
    for item in _get(response, "search_results") or []:  # Perplexity
        sources.append(FoundSource(str(_get(item, "url") or ""), str(_get(item, "title") or ""),
                                   _get(item, "date")))
    for url in _get(response, "citations") or []:
        if isinstance(url, str):
            sources.append(FoundSource(url))
    fields = getattr(message, "provider_specific_fields", None) or {}
    for group in fields.get("citations") or []:  # Anthropic's web search citations
        for cited in group if isinstance(group, list) else [group]:
            sources.append(FoundSource(str(_get(cited, "url") or ""),
                                       str(_get(cited, "title") or "")))
    return text, [s for s in sources if s.url]


def _from_responses(response: Any) -> tuple[str, list[FoundSource]]:
    texts: list[str] = []
    sources: list[FoundSource] = []
    for item in _get(response, "output") or []:
        for part in _get(item, "content") or []:
            if _get(part, "type") == "output_text":
                texts.append(str(_get(part, "text") or ""))
                sources += [_annotation(a) for a in _get(part, "annotations") or []]
    return "\n".join(texts), [s for s in sources if s.url]


def _annotation(annotation: Any) -> FoundSource:
    cited = _get(annotation, "url_citation") or annotation
    return FoundSource(str(_get(cited, "url") or ""), str(_get(cited, "title") or ""))


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def sources_in_text(text: str) -> list[FoundSource]:
    """Markdown links (with a date in brackets after them) and bare URLs in an answer."""
    found = [FoundSource(m.group(2), m.group(1).strip(), m.group(3)) for m in _LINK.finditer(text)]
    linked = _LINK.sub("", text)
    return found + [FoundSource(url.rstrip(".,;:")) for url in _BARE_URL.findall(linked)]


def _merged(sources: list[FoundSource]) -> list[FoundSource]:
    """One source per URL, keeping the first title and date given for it."""
    by_url: dict[str, FoundSource] = {}
    for source in sources:
        known = by_url.get(source.url)
        if known is None:
            by_url[source.url] = source
        elif (not known.title and source.title) or (not known.date and source.date):
            by_url[source.url] = FoundSource(source.url, known.title or source.title,
                                             known.date or source.date)
    return list(by_url.values())
