"""The secret formats recognised by their shape: one data table, one row per kind.

Each row names the kind the marker shows and the regex. A regex with a group named `secret`
masks only that group (a URL keeps its scheme, user and host; `"private_key": "..."` keeps its
key); otherwise the whole match goes.

Speed: every regex starts with a literal (`ghp_`, `AIza`, `://`...), so `re` looks for it with
its fast literal search and a row costs ~0.3-1 ms per MB of text that does not hold it. A
regex that starts with a class or a lookbehind is tried at every position instead (20-60 ms
per MB): a row that must not continue a word says `word_start` and is checked on the match.

detect-secrets (used by review and commit) is not used here: its line plugins cost ~17 s per
MB (measured on generated code: 1.7 s for 100 KB), where this table costs ~15 ms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretPattern:
    """One recognised secret format."""

    kind: str
    """What the marker says: `[secret masked: GitHub token]`."""
    regex: re.Pattern[str]
    """What is masked: the group `secret` when the regex has one, else the whole match."""
    word_start: bool = False
    """The match must not continue a word (`task-...` holds no `sk-` key)."""
    line_start: bool = False
    """The regex starts with `\\n` (a literal, so it is fast): it is run on the text with a
    newline before it, so the text's first line counts too."""


def _row(kind: str, regex: str, *, word_start: bool = False, line_start: bool = False
         ) -> SecretPattern:
    return SecretPattern(kind, re.compile(regex), word_start, line_start)


_TAIL = r"(?![A-Za-z0-9_])"
"""A token ends where a word would: `ghp_...` is not masked inside a longer identifier."""

_BASE64_LINE = r"[A-Za-z0-9+/]{64,76}"
"""A line of a PEM (64) or OpenSSH (70) key body, or MIME base64 (76)."""
_LINE_PREFIX = r"(?:[\w./-]{1,160}:)?[ \t0-9:|>-]{0,40}"
"""What a tool puts before a file's line: indentation, `cat -n`/read_file line numbers, grep's
`path:line:`. Narrow on purpose: a prefix that could hold base64 costs 35 ms per MB."""

PATTERNS: tuple[SecretPattern, ...] = (
    _row("private key (service account JSON)",
         r'"private_key(?:_id)?"\s*:\s*"(?P<secret>(?:[^"\\]|\\.){8,})"'),
    _row("private key",
         r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
         r"(?:[\s\S]{0,20000}?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
         r"|[A-Za-z0-9+/=\s:,\\-]*)"),
    _row("key material (base64 lines)",  # a key's body read without its BEGIN line
         r"\n" + _LINE_PREFIX + r"(?P<secret>" + _BASE64_LINE + r"(?:\r?\n" + _LINE_PREFIX
         + _BASE64_LINE + r")+)(?![A-Za-z0-9+/=])", line_start=True),
    _row("password in URL",
         r"://[^\s:/@'\"<>]{0,256}:(?P<secret>[^\s@/'\"<>${*][^\s@/'\"<>]{0,512})@"
         r"[A-Za-z0-9\[]"),
    _row("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,255}" + _TAIL),
    _row("GitHub token", r"github_pat_[A-Za-z0-9_]{22,255}" + _TAIL),
    _row("GitLab token", r"glpat-[A-Za-z0-9_\-]{20,}" + _TAIL),
    _row("Slack token", r"xox[abposre]-[A-Za-z0-9\-]{10,}" + _TAIL),
    _row("Slack webhook", r"hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}"),
    _row("AWS access key", r"A(?:KIA|SIA|BIA|CCA)[0-9A-Z]{16}" + _TAIL),
    _row("AWS secret key",
         r"ecret[A-Za-z_]{0,20}[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})"
         r"(?![A-Za-z0-9/+=])"),
    _row("AWS secret key",
         r"ECRET[A-Z_]{0,20}[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})"
         r"(?![A-Za-z0-9/+=])"),
    _row("Google API key", r"AIza[0-9A-Za-z_\-]{35}" + _TAIL),
    _row("Anthropic key", r"sk-ant-[A-Za-z0-9_\-]{20,}" + _TAIL),
    _row("OpenAI-style key", r"sk-[A-Za-z0-9_\-]{20,}" + _TAIL, word_start=True),
    _row("Hugging Face token", r"hf_[A-Za-z0-9]{30,}" + _TAIL, word_start=True),
    _row("Stripe key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}" + _TAIL, word_start=True),
    _row("Stripe key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}" + _TAIL, word_start=True),
    _row("Stripe webhook secret", r"whsec_[A-Za-z0-9]{24,}" + _TAIL),
    _row("npm token", r"npm_[A-Za-z0-9]{36}" + _TAIL, word_start=True),
    _row("PyPI token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    _row("SendGrid key", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    _row("JWT", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
)
