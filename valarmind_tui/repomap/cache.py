"""The on-disk cache: per-file tags keyed by path + mtime + size, the ranked graph of a whole
file set, and recent rendered results.

SQLite under the user cache dir (`$XDG_CACHE_HOME/valarmind/repomap/<hash of root>.sqlite`):
nothing is written into the project (no .gitignore to teach), one row per file makes an edit a
one-row update, and WAL lets two sessions on the same project read while one writes.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

SCHEMA_VERSION = 4
"""Bump when the stored tags, the graph, the ranking or the rendering change: each version
has its own file, so no stale result is ever served."""
_RESULTS_KEPT = 32


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "valarmind" / "repomap"


class TagCache:
    """SQLite store of file tags, graphs and results for one project root."""

    def __init__(self, root: Path, cache_dir: Path | None = None) -> None:
        self.path = self.path_for(root, cache_dir)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, mtime_ns INTEGER,
                size INTEGER, skipped TEXT, data BLOB);
            CREATE TABLE IF NOT EXISTS graphs (fingerprint TEXT PRIMARY KEY, data BLOB);
            CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, used INTEGER, data BLOB);
            """
        )

    @staticmethod
    def path_for(root: Path, cache_dir: Path | None = None) -> Path:
        """The database file of the project at `root`."""
        digest = hashlib.sha1(str(root).encode()).hexdigest()[:16]
        return (cache_dir or default_cache_dir()) / f"{digest}.v{SCHEMA_VERSION}.sqlite"

    def close(self) -> None:
        self._db.close()

    def file_rows(self) -> dict[str, tuple[int, int, str | None, bytes | None]]:
        rows = self._db.execute("SELECT path, mtime_ns, size, skipped, data FROM files")
        return {p: (m, s, sk, d) for p, m, s, sk, d in rows}

    def file_stamps(self) -> dict[str, tuple[int, int]]:
        rows = self._db.execute("SELECT path, mtime_ns, size FROM files")
        return {p: (m, s) for p, m, s in rows}

    def put_files(self, rows: Iterable[tuple[str, int, int, str | None, bytes | None]]) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", rows)

    def drop_files(self, paths: Iterable[str]) -> None:
        with self._db:
            self._db.executemany("DELETE FROM files WHERE path = ?", ((p,) for p in paths))

    def get_graph(self, fingerprint: str) -> bytes | None:
        row = self._db.execute("SELECT data FROM graphs WHERE fingerprint = ?",
                               (fingerprint,)).fetchone()
        return row[0] if row else None

    def put_graph(self, fingerprint: str, data: bytes) -> None:
        with self._db:
            self._db.execute("DELETE FROM graphs")
            self._db.execute("INSERT INTO graphs VALUES (?, ?)", (fingerprint, data))

    def get_result(self, key: str) -> bytes | None:
        row = self._db.execute("SELECT data FROM results WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put_result(self, key: str, data: bytes, used: int) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?)", (key, used, data))
            self._db.execute(
                "DELETE FROM results WHERE key NOT IN "
                "(SELECT key FROM results ORDER BY used DESC LIMIT ?)", (_RESULTS_KEPT,))
