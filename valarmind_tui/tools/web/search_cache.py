"""Search results kept on disk by seed 001's rules: 24 hours, documentation 7 days, CVEs and
advisories 1 hour (`[search]` ttl_hours, docs_ttl_hours, advisory_ttl_hours). One JSON file
per backend and query in the data dir, written atomically; an unreadable file is a miss."""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.core.safe_files import atomic_write
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.settings.senses import SearchSettings
from valarmind_tui.tools.web.sources import Source, query_kind


@dataclass(frozen=True)
class CachedSearch:
    """A search's text and sources, and when they were fetched."""

    text: str
    sources: list[Source]
    at: float


def ttl_s(query: str, sources: list[Source], settings: SearchSettings) -> float:
    """How long results are kept: advisories shortest, documentation (the query asks for it,
    or every source is official documentation) longest."""
    kind = query_kind(query)
    if kind == "security":
        return settings.advisory_ttl_hours * 3600
    if kind == "documentation" or (sources and all(s.type == "official_docs" for s in sources)):
        return settings.docs_ttl_hours * 3600
    return settings.ttl_hours * 3600


def _file(backend: str, query: str) -> Path:
    key = hashlib.sha256(f"{backend}\n{' '.join(query.lower().split())}".encode()).hexdigest()
    return user_data_dir() / "search_cache" / f"{key}.json"


def cached(backend: str, query: str, now: float | None = None) -> CachedSearch | None:
    """The results kept for `query` from `backend`, while younger than their age limit."""
    try:
        data: dict[str, Any] = json.loads(_file(backend, query).read_text(encoding="utf-8"))
        if (now or time.time()) - float(data["at"]) >= float(data["ttl_s"]):
            return None
        sources = [Source(**s) for s in data["sources"]]
        return CachedSearch(str(data["text"]), sources, float(data["at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(backend: str, query: str, result: CachedSearch, settings: SearchSettings) -> None:
    """Keep `result` for its age limit (nothing is kept when that limit is 0)."""
    ttl = ttl_s(query, result.sources, settings)
    if ttl <= 0:
        return
    body = {"backend": backend, "query": query, "at": result.at, "ttl_s": ttl,
            "text": result.text, "sources": [s.as_dict() for s in result.sources]}
    with contextlib.suppress(OSError):  # a search still answers without its cache
        atomic_write(_file(backend, query), json.dumps(body))
