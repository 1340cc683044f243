"""Where ValarMind keeps the user's files (XDG). Only os and pathlib: the TUI's first frame
reads these and must not wait for config.py's pydantic-settings import."""

from __future__ import annotations

import os
from pathlib import Path


def user_config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "valarmind"


def user_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "valarmind"
