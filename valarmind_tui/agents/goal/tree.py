"""What a round changed: the work tree's snapshots in the session's shadow repository (the one
/undo and /rewind use) and the text of every file that differs between two of them."""

from __future__ import annotations

import asyncio

from valarmind_tui.agents.goal.weakening import FileChange
from valarmind_tui.checkpoints.shadow import GONE, ShadowRepo

MAX_TEXT_BYTES = 1_000_000
"""Larger files are not read as text (no test or script is that large)."""


class TreeWatch:
    """Snapshots of the project's tree for one goal."""

    def __init__(self, repo: ShadowRepo) -> None:
        self.repo = repo

    async def snapshot(self) -> str:
        """The tree id of the work tree now."""
        snap = await asyncio.to_thread(self.repo.snapshot)
        return snap.tree

    async def changes(self, before: str, after: str) -> list[FileChange]:
        """Every file that differs between two snapshots, with both texts."""
        return await asyncio.to_thread(self._changes, before, after)

    def _changes(self, before: str, after: str) -> list[FileChange]:
        if before == after:
            return []
        diff = self.repo.diff(before, after)
        blobs = self.repo.blobs([b for c in diff for b in (c.a_blob, c.b_blob)
                                 if not set(b) <= {"0"}])
        return [FileChange(c.path, _text(blobs.get(c.a_blob), c.a_mode),
                           _text(blobs.get(c.b_blob), c.b_mode)) for c in diff]


def _text(data: bytes | None, mode: str) -> str | None:
    if data is None or mode.startswith(GONE) or len(data) > MAX_TEXT_BYTES or b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")
