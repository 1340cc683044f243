"""The secret formats recognised by their shape: one data table, one row per kind.

Each row names the kind the marker shows, the literal strings one of which every match holds
(a `str.find` over the text decides whether the row's regex runs at all: most text holds none
of them, and a plain substring search runs at memory speed where a regex walks every position),
and the regex. A regex with a group named `secret` masks only that group (a URL keeps its scheme,
user and host; `"private_key": "..."` keeps its key); otherwise the whole match goes.

detect-secrets (used by review and commit) is not used here: it scans line by line with a dozen
plugins and costs ~3 s per MB, where this table costs milliseconds (docs/architecture.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretPattern:
    """One recognised secret format."""

    kind: str
    """What the marker says: `[secret masked: GitHub token]`."""
    anchors: tuple[str, ...]
    """Literal strings, one of which every match contains (case as written)."""
    regex: re.Pattern[str]
    """What is masked: the group `secret` when the regex has one, else the whole match."""


def _row(kind: str, anchors: tuple[str, ...], regex: str, flags: int = 0) -> SecretPattern:
    return SecretPattern(kind, anchors, re.compile(regex, flags))


_TAIL = r"(?![A-Za-z0-9_])"
"""A token ends where a word would: `ghp_...` is not masked inside a longer identifier."""

PATTERNS: tuple[SecretPattern, ...] = (
    _row("private key (service account JSON)", ('"private_key',),
         r'"private_key(?:_id)?"\s*:\s*"(?P<secret>(?:[^"\\]|\\.){8,})"'),
    _row("private key", ("PRIVATE KEY",),
         r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
         r"(?:[\s\S]{0,20000}?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
         r"|[A-Za-z0-9+/=\s:,\\-]*)"),
    _row("password in URL", ("://",),
         r"://[^\s:/@'\"<>]{0,256}:(?P<secret>[^\s@/'\"<>${*][^\s@/'\"<>]{0,512})@"
         r"[A-Za-z0-9\[]"),
    _row("GitHub token", ("gh",), r"gh[pousr]_[A-Za-z0-9]{36,255}" + _TAIL),
    _row("GitHub token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,255}" + _TAIL),
    _row("GitLab token", ("glpat-",), r"glpat-[A-Za-z0-9_\-]{20,}" + _TAIL),
    _row("Slack token", ("xox",), r"xox[abposre]-[A-Za-z0-9\-]{10,}" + _TAIL),
    _row("Slack webhook", ("hooks.slack.com/",),
         r"hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}"),
    _row("AWS access key", ("AKIA", "ASIA", "ABIA", "ACCA"),
         r"A(?:KIA|SIA|BIA|CCA)[0-9A-Z]{16}" + _TAIL),
    _row("AWS secret key", ("aws", "AWS", "Aws"),
         r"(?i:aws)[A-Za-z0-9_.\-]{0,30}(?i:secret|private)[A-Za-z0-9_.\-]{0,30}"
         r"[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
    _row("Google API key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}" + _TAIL),
    _row("Anthropic key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}" + _TAIL),
    _row("OpenAI-style key", ("sk-",), r"(?<![A-Za-z0-9_\-])sk-[A-Za-z0-9_\-]{20,}" + _TAIL),
    _row("Hugging Face token", ("hf_",), r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}" + _TAIL),
    _row("Stripe key", ("_live_", "_test_"),
         r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _TAIL),
    _row("Stripe webhook secret", ("whsec_",), r"whsec_[A-Za-z0-9]{24,}" + _TAIL),
    _row("npm token", ("npm_",), r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}" + _TAIL),
    _row("PyPI token", ("pypi-",), r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    _row("SendGrid key", ("SG.",), r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    _row("JWT", ("eyJ",),
         r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
)
