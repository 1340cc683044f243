"""web_fetch {url, prompt?}: GET a page, HTML → Markdown, 15-minute cache, size cap (risk WEB)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from valarmind_tui.core.safe_files import atomic_write
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.tools.base import Preview, Risk, Tool, ToolContext, ToolParams, ToolResult

CACHE_TTL_S = 15 * 60
MAX_BYTES = 2_000_000
MAX_CHARS = 20_000
TIMEOUT_S = 20.0
_MEMORY: dict[str, tuple[float, str]] = {}

_SKIP = ("script", "style", "noscript", "template", "svg", "head", "iframe", "nav", "footer")
"""Elements whose content is never page text: dropped whole before conversion."""


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, markdown) of an HTML document, by markdownify (MIT) over BeautifulSoup."""
    from bs4 import BeautifulSoup
    from markdownify import ATX, MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for element in soup(list(_SKIP)):
        element.decompose()
    text = MarkdownConverter(heading_style=ATX, bullets="-", strip=["img"]).convert_soup(soup)
    text = re.sub(r"\[\s*\]\([^)]*\)", "", text)  # links around nothing (icons)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return title, re.sub(r"\n{3,}", "\n\n", text).strip()


def _cache_file(url: str) -> Path:
    return user_data_dir() / "web_cache" / (hashlib.sha256(url.encode()).hexdigest() + ".json")


def _cached(url: str) -> str | None:
    now = time.time()
    hit = _MEMORY.get(url)
    if hit and now - hit[0] < CACHE_TTL_S:
        return hit[1]
    try:
        data = json.loads(_cache_file(url).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if now - float(data.get("at", 0)) >= CACHE_TTL_S:
        return None
    _MEMORY[url] = (float(data["at"]), data["text"])
    return str(data["text"])


def _store(url: str, text: str) -> None:
    at = time.time()
    _MEMORY[url] = (at, text)
    path = _cache_file(url)
    with contextlib.suppress(OSError):  # the in-memory cache still works
        atomic_write(path, json.dumps({"url": url, "at": at, "text": text}))


async def fetch_markdown(url: str) -> str:
    """The page as Markdown; ValueError for HTTP errors, httpx errors for network trouble."""
    import httpx

    client = httpx.AsyncClient(follow_redirects=True, timeout=TIMEOUT_S,
                               headers={"User-Agent": "ValarMind/web_fetch"})
    async with client, client.stream("GET", url) as response:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_BYTES:
                break
        if response.status_code >= 400:
            raise ValueError(f"HTTP {response.status_code} from {url}")
        body = b"".join(chunks)[:MAX_BYTES].decode(response.encoding or "utf-8", "replace")
        kind = response.headers.get("content-type", "")
    if "html" in kind or body.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
        title, text = html_to_markdown(body)
        text = f"# {title}\n\n{text}" if title and not text.startswith("# ") else text
    else:
        text = body
    if size >= MAX_BYTES:
        text += f"\n\n[truncated: the page is larger than {MAX_BYTES:,} bytes]"
    return text


class FetchParams(ToolParams):
    url: str = Field(description="The http(s) URL to fetch.")
    prompt: str | None = Field(None, description="What you are looking for in the page.")


class WebFetchTool(Tool[FetchParams]):
    name = "web_fetch"
    risk = Risk.WEB
    description = "Fetch a web page (http/https) and return it as Markdown. Cached 15 minutes."

    Params = FetchParams

    async def preview(self, params: FetchParams, ctx: ToolContext) -> Preview:
        return Preview(summary=f"fetch {params.url}")

    async def run(self, params: FetchParams, ctx: ToolContext) -> ToolResult:
        url = params.url.strip()
        if not re.match(r"^https?://[^\s/]+", url):
            return ToolResult.error(f"not an http(s) URL: {url!r}")
        text = _cached(url)
        cached = text is not None
        if text is None:
            try:
                text = await fetch_markdown(url)
            except ValueError as exc:
                return ToolResult.error(str(exc))
            except Exception as exc:  # noqa: BLE001 - httpx's network errors, reported plainly
                return ToolResult.error(_network_message(url, exc))
            _store(url, text)
        return ToolResult(_shape(text, params.prompt, url), data={"url": url, "cached": cached})


def _network_message(url: str, exc: Any) -> str:
    kind = type(exc).__name__
    offline = ("ConnectError", "ConnectTimeout", "ReadTimeout", "NetworkError", "TimeoutException")
    if kind in offline:
        return (f"No network access: could not reach {url} ({kind}: {exc}). Web results are "
                "unavailable; say so instead of guessing.")
    return f"Fetching {url} failed ({kind}: {exc})."


def _shape(text: str, prompt: str | None, url: str) -> str:
    """Cap the size; with a prompt, put the paragraphs that mention its words first."""
    header = f"Source: {url}\n"
    if prompt:
        header += f"Looking for: {prompt}\n"
        if len(text) > MAX_CHARS:
            words = {w for w in re.findall(r"\w{4,}", prompt.lower())}
            paras = text.split("\n\n")
            scored = sorted(paras, key=lambda p: -sum(w in p.lower() for w in words))
            text = "\n\n".join(scored)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n\n[truncated at {MAX_CHARS:,} characters]"
    return header + "\n" + text
