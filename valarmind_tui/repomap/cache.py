"""The on-disk cache: per-file tags keyed by the file's stamp (`files.Stamp`), the ranked graph
of a whole file set, recent rendered results, and git's filtered listing.

SQLite under the user cache dir (`$XDG_CACHE_HOME/valarmind/repomap/<hash of root>.v<N>.sqlite`):
nothing is written into the project (no .gitignore to teach), one row per file makes an edit a
one-row update, all rows are read in one query, and WAL lets two sessions on the same project read
while one writes. A cache written by another schema version is another file, and is deleted when
this version first opens the project's cache.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

SCHEMA_VERSION = 5
"""Bump when the stored tags, the graph, the ranking or the rendering change: each version
has its own file, so no stale result is ever served."""
_RESULTS_KEPT = 32

FileRow = tuple[tuple[int, int, int, int], str | None, str | None, bytes | None]


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "valarmind" / "repomap"


class TagCache:
    """SQLite store of file tags, graphs and results for one project root."""

    def __init__(self, root: Path, cache_dir: Path | None = None) -> None:
        self.path = self.path_for(root, cache_dir)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists()
        self._db = sqlite3.connect(self.path, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, mtime_ns INTEGER,
                size INTEGER, ctime_ns INTEGER, inode INTEGER, digest TEXT, skipped TEXT,
                data BLOB);
            CREATE TABLE IF NOT EXISTS graphs (fingerprint TEXT PRIMARY KEY, data BLOB);
            CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, used INTEGER, data BLOB);
            CREATE TABLE IF NOT EXISTS listings (key TEXT PRIMARY KEY, data BLOB);
            """
        )
        if fresh:
            self._drop_other_versions()

    @staticmethod
    def path_for(root: Path, cache_dir: Path | None = None) -> Path:
        """The database file of the project at `root`."""
        digest = hashlib.sha1(str(root).encode()).hexdigest()[:16]
        return (cache_dir or default_cache_dir()) / f"{digest}.v{SCHEMA_VERSION}.sqlite"

    def close(self) -> None:
        self._db.close()

    def _drop_other_versions(self) -> None:
        """Delete this project's caches of other schema versions (and their WAL files)."""
        stem = self.path.name.split(".v", 1)[0]
        for old in self.path.parent.glob(f"{stem}.v*.sqlite*"):
            if not old.name.startswith(self.path.name):
                old.unlink(missing_ok=True)

    def file_rows(self) -> dict[str, FileRow]:
        """Every file's row, in one query: path -> ((mtime_ns, size, ctime_ns, inode), digest
        of the content parsed when the file was racy or None, skipped reason, tags)."""
        rows = self._db.execute(
            "SELECT path, mtime_ns, size, ctime_ns, inode, digest, skipped, data FROM files")
        return {p: ((m, s, c, i), dg, sk, d) for p, m, s, c, i, dg, sk, d in rows}

    def put_files(self, rows: Iterable[tuple[str, int, int, int, int, str | None, str | None,
                                             bytes | None]]) -> None:
        """Rows of (path, mtime_ns, size, ctime_ns, inode, digest, skipped, tags)."""
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 rows)

    def drop_files(self, paths: Iterable[str]) -> None:
        with self._db:
            self._db.executemany("DELETE FROM files WHERE path = ?", ((p,) for p in paths))

    def get_listing(self, key: str) -> list[str] | None:
        row = self._db.execute("SELECT data FROM listings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        names = marshal.loads(row[0])
        return names if isinstance(names, list) else None

    def put_listing(self, key: str, names: list[str]) -> None:
        with self._db:
            self._db.execute("DELETE FROM listings")
            self._db.execute("INSERT INTO listings VALUES (?, ?)", (key, marshal.dumps(names)))

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
