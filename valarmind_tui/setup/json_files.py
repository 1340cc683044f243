"""The JSON files other tools keep their setup in (Claude's settings.json, its plugins'
registry and hooks.json), read one way: a regular file, capped, a JSON object at the top."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from valarmind_tui.core.safe_files import read_regular_bytes

MAX_BYTES = 1_000_000


def read_json_object(path: Path) -> dict[str, Any]:
    """The file's JSON object; ValueError with the file and line when it is not one."""
    try:
        raw = read_regular_bytes(path, limit=MAX_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc})") from None
    if len(raw) > MAX_BYTES:
        raise ValueError(f"{path}: larger than {MAX_BYTES:,} bytes; not read")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object at the top")
    return data
