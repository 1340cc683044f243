"""Placing the vendored setups (tests/fixtures/setups/) where their authors put them."""

from __future__ import annotations

import shutil
from pathlib import Path

from valarmind_tui.settings.trust.decision import remember

SETUPS = Path(__file__).resolve().parents[1] / "fixtures" / "setups"


def place(source: str, target: Path) -> Path:
    """Copy `setups/<source>` (its dot folders included) into `target`."""
    shutil.copytree(SETUPS / source, target, dirs_exist_ok=True)
    return target


def trust(project: Path) -> None:
    remember(project, True)
