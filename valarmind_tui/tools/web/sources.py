"""Seed 001's source types and reliability (1-10) for a search result, read from its URL; and
what kind of search a query is, which decides how long its results are kept."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal
from urllib.parse import urlparse

SourceType = Literal["official_docs", "github", "stackoverflow", "blog", "other"]
QueryKind = Literal["documentation", "security", "general"]

_DOCS_HOSTS = ("docs.", "developer.", "developers.", "learn.", "reference.", "api.", "man7.org",
               "readthedocs.io", "readthedocs.org", "docs.rs", "pkg.go.dev", "python.org",
               "nodejs.org", "rust-lang.org", "kernel.org", "w3.org", "whatwg.org",
               "nvd.nist.gov", "cve.org", "cve.mitre.org", "osv.dev", "ietf.org")
_BLOG_HOSTS = ("medium.com", "dev.to", "substack.com", "hashnode.", "blog.", "martinfowler.com",
               "freecodecamp.org", "smashingmagazine.com", "css-tricks.com")
_FORUM_HOSTS = ("reddit.com", "news.ycombinator.com", "discourse.", "forum.", "forums.",
                "groups.google.com", "quora.com")
_SECURITY = re.compile(r"\b(cve-\d|ghsa-|advisor|vulnerab|exploit|security|rce\b|xss\b)", re.I)
_DOCS = re.compile(r"\b(docs?|documentation|reference|api|manual|guide|changelog|release notes)\b",
                   re.I)


@dataclass(frozen=True)
class Source:
    """One search result, in seed 001's shape."""

    url: str
    title: str
    type: SourceType
    reliability: int
    """1-10 by seed 001's source priority (official docs highest, forums lowest)."""
    date: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def classify(url: str, title: str = "", date: str | None = None) -> Source:
    """`url` as a seed 001 source: its type and reliability from the host and path."""
    parsed = urlparse(url)
    host = (parsed.hostname or "").lower().removeprefix("www.")
    path = parsed.path.lower()
    kind: SourceType
    if host in ("github.com", "gist.github.com") or host.endswith(".github.io"):
        kind, score = "github", 8 if "/advisories/" not in path else 9
    elif host.endswith(("stackoverflow.com", "stackexchange.com", "superuser.com",
                        "serverfault.com")):
        kind, score = "stackoverflow", 7
    elif _host_is(host, _DOCS_HOSTS) or "/docs/" in path or path.startswith("/doc"):
        kind, score = "official_docs", 9
    elif _host_is(host, _BLOG_HOSTS) or "/blog/" in path:
        kind, score = "blog", 5
    elif _host_is(host, _FORUM_HOSTS):
        kind, score = "other", 3
    else:
        kind, score = "other", 4  # tutorials and articles
    return Source(url=url, title=title or host, type=kind, reliability=score, date=date)


def _host_is(host: str, patterns: tuple[str, ...]) -> bool:
    return any(host.startswith(p) if p.endswith(".") else host == p or host.endswith("." + p)
               for p in patterns)


def query_kind(query: str) -> QueryKind:
    """Seed 001's search types that change the cache: security (CVEs, advisories) and
    documentation; everything else is general."""
    if _SECURITY.search(query):
        return "security"
    if _DOCS.search(query):
        return "documentation"
    return "general"
