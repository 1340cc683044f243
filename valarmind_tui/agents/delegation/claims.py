"""Which files the running write delegations hold: writers run at once only on disjoint files.

A writer that names its files (`delegate`'s `files`) waits until no running writer holds one of
them (the same path, or a folder holding it); a writer that names none waits for every writer
and holds the whole tree. Read-only specialists never claim anything. The child's gate keeps a
writer to the files it named (`ToolServices.write_scope`), so two writers never edit one file.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path, PurePosixPath

from valarmind_tui.safety.paths import relative, resolve_in_project

WHOLE_TREE: frozenset[str] = frozenset()
"""What a writer without named files holds."""


def project_paths(root: Path, paths: Iterable[str]) -> frozenset[str]:
    """The paths as project-relative POSIX strings (a path outside the project raises
    PathOutsideProject, a ToolError)."""
    resolved = root.resolve()
    found = frozenset(relative(resolved, resolve_in_project(resolved, p)) for p in paths)
    return WHOLE_TREE if "." in found else found


def overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    """Some path of `a` is, holds or lies in a path of `b` (the whole tree overlaps all)."""
    if not a or not b:
        return True
    return any(x == y or PurePosixPath(x).is_relative_to(y) or PurePosixPath(y).is_relative_to(x)
               for x in a for y in b)


def within(path: str, scope: frozenset[str]) -> bool:
    return any(path == s or PurePosixPath(path).is_relative_to(s) for s in scope)


class WriteClaims:
    """The files held by the write delegations that run now."""

    def __init__(self) -> None:
        self._held: dict[int, frozenset[str]] = {}
        self._changed = asyncio.Condition()

    def _free(self, files: frozenset[str]) -> bool:
        return not any(overlap(files, held) for held in self._held.values())

    @contextlib.asynccontextmanager
    async def claim(self, files: frozenset[str]) -> AsyncIterator[None]:
        """Hold `files` (WHOLE_TREE: everything) for the block, once nobody holds any."""
        token = object()
        async with self._changed:
            await self._changed.wait_for(lambda: self._free(files))
            self._held[id(token)] = files
        try:
            yield
        finally:
            async with self._changed:
                del self._held[id(token)]
                self._changed.notify_all()
