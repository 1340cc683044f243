"""What a server has open: each document's text and version as we last sent them, and the
diagnostics it published for each.

Documents are opened when an agent reads, edits or asks about a file, kept in step with the
disk (full text on each change), and the least recently used closed past `MAX_OPEN` (a server
re-checks every open file after a change).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_OPEN = 64
UNCHANGED_QUIET_S = 0.5
MAX_FILE_BYTES = 2 * 1024 * 1024
"""Larger files are not sent to a server (generated code, data)."""


@dataclass
class Document:
    path: Path
    language_id: str
    version: int
    text: str


@dataclass(frozen=True)
class Published:
    """One publishDiagnostics."""

    version: int | None
    items: tuple[dict[str, Any], ...]
    seq: int
    """Its place among everything this server published (later is larger)."""


@dataclass
class DiagnosticsBoard:
    """The diagnostics a server published, by URI, and a way to wait for the next."""

    latest: dict[str, Published] = field(default_factory=dict)
    seq: int = 0
    last_at: float = 0.0
    """When the last one arrived (the loop's clock)."""
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, params: Any) -> None:
        if not isinstance(params, dict) or not isinstance(params.get("uri"), str):
            return
        items = params.get("diagnostics")
        version = params.get("version")
        self.seq += 1
        self.last_at = asyncio.get_running_loop().time()
        self.latest[params["uri"]] = Published(
            version if isinstance(version, int) else None,
            tuple(d for d in items if isinstance(d, dict)) if isinstance(items, list) else (),
            self.seq)
        self.wake()

    def wake(self) -> None:
        """Wake every waiter (something was published, or the server stopped)."""
        self._arrived.set()
        self._arrived = asyncio.Event()

    async def wait(self, uri: str, *, after: int, version: int, timeout: float,
                   gone: Callable[[], bool] = lambda: False) -> Published | None:
        """The first diagnostics for `uri` published after `after` for `version` (or with no
        version), waiting at most `timeout` seconds; None when none came or the server is
        `gone`.

        Some servers (typescript-language-server) publish a file only when its diagnostics
        changed: once the server has published others' since `after` and then been quiet for
        UNCHANGED_QUIET_S, the file's are taken as unchanged (the last ones, or none)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = self.latest.get(uri)
            if found is not None and found.seq > after and (
                    found.version is None or found.version >= version):
                return found
            now = loop.time()
            if self.seq > after and now - self.last_at >= UNCHANGED_QUIET_S:
                return found if found is not None else Published(None, (), self.seq)
            left = deadline - now
            if left <= 0 or gone():
                return None
            wake = min(left, UNCHANGED_QUIET_S) if self.seq > after else left
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), wake)

    async def settle(self, quiet: float, limit: float) -> None:
        """Wait until nothing was published for `quiet` seconds, at most `limit` seconds: a
        change re-checks the files that import the changed one too, a moment later."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while (left := deadline - loop.time()) > 0:
            try:
                await asyncio.wait_for(self._arrived.wait(), min(quiet, left))
            except TimeoutError:
                return


class OpenDocuments:
    """The documents a server has open, least recently used first."""

    def __init__(self) -> None:
        self._docs: OrderedDict[str, Document] = OrderedDict()

    def get(self, uri: str) -> Document | None:
        doc = self._docs.get(uri)
        if doc is not None:
            self._docs.move_to_end(uri)
        return doc

    def put(self, uri: str, doc: Document) -> list[str]:
        """Keep `doc`; the URIs closed to stay within MAX_OPEN."""
        self._docs[uri] = doc
        self._docs.move_to_end(uri)
        closed: list[str] = []
        while len(self._docs) > MAX_OPEN:
            old, _ = self._docs.popitem(last=False)
            closed.append(old)
        return closed

    def drop(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def items(self) -> list[tuple[str, Document]]:
        return list(self._docs.items())

    def __len__(self) -> int:
        return len(self._docs)


def read_document(path: Path) -> str | None:
    """The file's text to send, or None when it is gone, not a regular file, too large or
    binary."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")
