"""Language servers' answers as text for the model: diagnostics (errors first, capped),
locations and hover text. A server's words are its own text, not the project's: control
characters in them are made visible here.

Positions are shown 1-based, columns in characters; LSP counts UTF-16 code units from 0
(`to_utf16`, `from_utf16` convert with the line's text).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from valarmind_tui.core.visible_text import visible

SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
SHOWN_SEVERITIES = (1, 2, 3)
"""Hints (unused names greyed out in an editor) are left out: noise to a model."""
MESSAGE_CHARS = 400
HOVER_CHARS = 4000


def to_utf16(line_text: str, column: int) -> int:
    """A 0-based character column as UTF-16 code units."""
    return len(line_text[:column].encode("utf-16-le")) // 2


def from_utf16(line_text: str, units: int) -> int:
    """A UTF-16 offset on the line as a 0-based character column."""
    count = 0
    for index, char in enumerate(line_text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line_text)


def uri_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def shown_path(path: Path, root: Path) -> str:
    """Relative to the project when inside it, else as it is (a library's stub)."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def position(start: Any, text: str | None) -> tuple[int, int]:
    """(line, column), 1-based, of an LSP position; the column in characters when the
    document's text is known."""
    line = start.get("line", 0) if isinstance(start, dict) else 0
    units = start.get("character", 0) if isinstance(start, dict) else 0
    line = line if isinstance(line, int) and line >= 0 else 0
    units = units if isinstance(units, int) and units >= 0 else 0
    if text is not None:
        lines = text.splitlines()
        if line < len(lines):
            units = from_utf16(lines[line], units)
    return line + 1, units + 1


def severity_of(diagnostic: dict[str, Any]) -> int:
    value = diagnostic.get("severity", 1)
    return value if value in SEVERITY else 1


def shown(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The diagnostics worth showing, errors first, then by line."""
    kept = [d for d in items if severity_of(d) in SHOWN_SEVERITIES]
    return sorted(kept, key=lambda d: (severity_of(d), position(d.get("range", {}).get(
        "start") if isinstance(d.get("range"), dict) else None, None)))


def diagnostic_line(diagnostic: dict[str, Any], where: str, text: str | None) -> str:
    rng = diagnostic.get("range")
    line, column = position(rng.get("start") if isinstance(rng, dict) else None, text)
    message = " ".join(str(diagnostic.get("message", "")).split())[:MESSAGE_CHARS]
    code = diagnostic.get("code")
    source = diagnostic.get("source")
    tag = f" [{code}]" if isinstance(code, str | int) and code != "" else ""
    origin = f" ({source})" if isinstance(source, str) and source else ""
    return visible(f"{where}:{line}:{column} {SEVERITY[severity_of(diagnostic)]}: "
                   f"{message}{tag}{origin}")


def counts(items: Sequence[dict[str, Any]]) -> str:
    """"2 errors, 1 warning", or "no problems"."""
    parts = []
    for value in SHOWN_SEVERITIES:
        n = sum(1 for d in items if severity_of(d) == value)
        if n:
            name = SEVERITY[value]
            parts.append(f"{n} {name}{'s' if n > 1 and name != 'info' else ''}")
    return ", ".join(parts) or "no problems"


def hover_text(result: Any) -> str:
    """The text of a Hover (MarkupContent, MarkedString or a list of them)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    pieces = contents if isinstance(contents, list) else [contents]
    texts: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            texts.append(piece)
        elif isinstance(piece, dict) and isinstance(piece.get("value"), str):
            texts.append(piece["value"])
    text = "\n".join(t.strip() for t in texts if t.strip())
    return visible(text[:HOVER_CHARS]) if text else ""


def locations(result: Any) -> list[tuple[Path, dict[str, Any]]]:
    """(path, start position) of a Location, a Location list or LocationLinks."""
    items = result if isinstance(result, list) else [result] if result else []
    found: list[tuple[Path, dict[str, Any]]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri", item.get("targetUri"))
        rng = item.get("range", item.get("targetSelectionRange"))
        path = uri_path(uri) if isinstance(uri, str) else None
        if path is not None and isinstance(rng, dict):
            found.append((path, rng.get("start", {})))
    return found
