"""The record of what the person trusted: one file per project in the user data dir.

`trust/<hash of the folder>.json` holds each configuration file's digest (trust_content.py) and a
masked copy of its text (small text files only), so a later change can be named and shown as a
diff. It lives in the user data dir: not in the project (which the repository controls) and
hidden from sandboxed commands. The copy is masked (trust_display.mask_secrets) before it is
written, so a token in a `.mcp.json` is not copied anywhere new.
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.core.safe_files import atomic_write
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.core.visible_text import visible
from valarmind_tui.settings.trust.content import TOO_LARGE, Fingerprint, fingerprint
from valarmind_tui.settings.trust.display import clip, diff, mask_secrets

COPY_LIMIT = 64 * 1024
"""A file's text is kept for diffs up to this size (bytes); larger or binary files by digest."""
COPIES_LIMIT = 1024 * 1024
"""All of a project's copies together; files past it are kept by digest only."""
VERSION = 1


@dataclass(frozen=True)
class ContentChanges:
    """How the configuration differs from what the person trusted."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    diff: str
    """A unified diff of the masked copies, control characters made visible."""

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def names(self) -> str:
        """`changed: a, b; added: c; removed: d` (names made visible)."""
        parts = [f"{label}: {', '.join(visible(n) for n in names)}" for label, names in (
            ("changed", self.changed), ("added", self.added), ("removed", self.removed)) if names]
        return "; ".join(parts)


def record_path(root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return user_data_dir() / "trust" / f"{key[:32]}.json"


def load(root: Path) -> dict[str, Any] | None:
    """The record for `root`, or None when nothing was recorded (or it is unreadable)."""
    try:
        data = json.loads(record_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("root") != str(root.resolve()):
        return None
    if not isinstance(data.get("digests"), dict):
        return None
    return data


def save(root: Path, found: Fingerprint | None = None) -> Fingerprint:
    """Record the configuration of `root` as trusted (read now unless `found` is given)."""
    found = fingerprint(root.resolve()) if found is None else found
    copies: dict[str, str] = {}
    room = COPIES_LIMIT
    for name, data in found.texts.items():
        text = _text(data)
        if text is not None and len(data) <= room:
            copies[name] = mask_secrets(text)
            room -= len(data)
    path = record_path(root)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    record = {"version": VERSION, "root": str(root.resolve()), "digests": found.digests,
              "copies": copies}
    atomic_write(path, json.dumps(record, indent=1, ensure_ascii=False), mode=0o600)
    return found


def forget(root: Path) -> None:
    """Drop the record (the folder is no longer trusted)."""
    with suppress(FileNotFoundError):
        os.unlink(record_path(root))


def compare(root: Path, record: dict[str, Any], found: Fingerprint | None = None
            ) -> ContentChanges:
    """What differs between `record` and the configuration of `root` now."""
    found = fingerprint(root.resolve()) if found is None else found
    before: dict[str, str] = record["digests"]
    now = found.digests
    added = tuple(sorted(n for n in now if n not in before))
    removed = tuple(sorted(n for n in before if n not in now))
    changed = tuple(sorted(n for n in now if n in before and before[n] != now[n]))
    kept = record.get("copies")
    copies: dict[str, Any] = kept if isinstance(kept, dict) else {}
    lines: list[str] = []
    for name in (*changed, *added, *removed):
        if name.endswith(f"/{TOO_LARGE}") and name in now:
            reason = found.texts[name].decode()
            lines.append(f"--- {visible(name)}: {reason}, too large to fingerprint: it never "
                         "loads as trusted")
            continue
        old = copies.get(name) if name in before else ""
        new = _masked(found.texts.get(name)) if name in now else ""
        lines += diff(name, old if isinstance(old, str) else None, new)
    return ContentChanges(added, changed, removed, clip(lines))


def _text(data: bytes) -> str | None:
    if len(data) > COPY_LIMIT or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _masked(data: bytes | None) -> str | None:
    text = None if data is None else _text(data)
    return None if text is None else mask_secrets(text)
