"""Showing a repository's configuration to the person who decides whether to trust it.

The text comes from the repository, so it is shown with its control characters visible (an
escape sequence in a hook could otherwise rewrite the very diff that shows it) and with values
that look like secrets masked before they are kept or shown (a `.mcp.json` may carry a token in
an server's `env`): the copy trust_record.py keeps is masked already.
"""

from __future__ import annotations

import difflib
import re

from valarmind_tui.core.visible_text import visible

SECRET = "«secret»"
"""What a masked value is replaced with."""
_SECRET_KEY = re.compile(
    r"""(?P<key>["']?[\w.-]*(?:token|secret|passw(?:or)?d|api[_-]?key|apikey|auth|credential"""
    r"""|private[_-]?key|access[_-]?key)[\w.-]*["']?\s*[:=]\s*)(?P<value>"[^"]*"|'[^']*'|[^\s,}]+)""",
    re.IGNORECASE)
_URL_USER = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.IGNORECASE)
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|\Z)",
                  re.DOTALL)
_TOKEN = re.compile(r"\b(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
                    r"|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,}"
                    r"|AIza[0-9A-Za-z_-]{30,})\b")
MAX_DIFF_LINES = 400


def mask_secrets(text: str) -> str:
    """`text` with secret-looking values replaced by SECRET: values of key-like names
    (`"GITHUB_TOKEN": "..."`, `api_key = ...`), credentials in URLs, private keys, and tokens
    of well-known shapes. The shape of the file stays, so a diff still reads."""
    text = _PEM.sub(SECRET, text)
    text = _URL_USER.sub(lambda m: m.group("scheme") + SECRET + "@", text)
    text = _SECRET_KEY.sub(lambda m: m.group("key") + SECRET, text)
    return _TOKEN.sub(SECRET, text)


def diff(name: str, old: str | None, new: str | None) -> list[str]:
    """A unified diff of one file's masked copies (None: no copy kept), lines made visible."""
    shown = visible(name)
    if old is None or new is None:
        return [f"--- {shown}: no copy to compare (binary, or larger than the copy's limit)"]
    rows = difflib.unified_diff(old.splitlines(), new.splitlines(), f"{shown} (trusted)",
                                f"{shown} (now)", lineterm="", n=2)
    lines = [visible(row) for row in rows]
    if not lines:
        return [f"--- {shown}: only a value shown as {SECRET}, or the file's mode, changed"]
    return lines


def clip(lines: list[str], limit: int = MAX_DIFF_LINES) -> str:
    """The lines joined, cut after `limit` with a line saying how many were left out."""
    if len(lines) <= limit:
        return "\n".join(lines)
    return "\n".join(lines[:limit]) + f"\n… {len(lines) - limit} more lines"
