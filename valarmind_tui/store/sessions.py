"""Sessions in SQLite (WAL): the append-only event log and the conversation history.

History messages are appended as they happen, so a session that crashes mid-turn can be resumed
from its last complete message. A message's images are kept once each in the `images` table, by
the sha256 of their bytes; the message holds `valarmind-image:<sha256>` in their place.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from valarmind_tui.core.events import Event, event_to_dict, event_type
from valarmind_tui.media.parts import (
    STORED_PREFIX,
    TOOL_IMAGES_HEADER,
    decode_data_url,
    message_text,
    replace_images,
)
from valarmind_tui.store.ledger import (
    INSERT,
    LEDGER_SCHEMA,
    SELECT,
    LedgerEntry,
    Tally,
    entry_from_row,
    entry_values,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    project_root TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    model TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS prompts (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    message_seq INTEGER NOT NULL,
    event_seq INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (session_id, message_seq)
);
CREATE TABLE IF NOT EXISTS images (
    sha256 TEXT PRIMARY KEY,
    mime TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS reported_counts (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id),
    model TEXT,
    tokens INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    digest TEXT NOT NULL
);
"""

# Deltas are many and tiny and the finished turn carries the same text; but the main agent's text
# deltas are logged, so a process killed mid-answer keeps what it had shown (`interrupted_text`),
# until its turn finishes (then they go: see append_event).
_NOT_LOGGED = {"reasoning_delta"}


@dataclass(frozen=True)
class SessionInfo:
    id: str
    project_root: str
    created: float
    updated: float
    title: str
    model: str | None


@dataclass(frozen=True)
class StoredPrompt:
    """One user message of a stored conversation."""

    seq: int
    """Its place in the messages table: /rewind keeps what came before it."""
    text: str
    at: float | None


@dataclass(frozen=True)
class ReportedCount:
    """The tokens a provider last reported for a session's conversation, kept so a resumed
    conversation is measured without a tokenizer (context/history_size.py)."""

    model: str | None
    """The model that counted."""
    tokens: int
    messages: int
    """How many of the conversation's first messages the count covers."""
    digest: str
    """The sha256 of those messages as counted, masked as they are stored: the ones read back
    are those only if theirs is the same (the store keeps every message; the count may have
    been of a compacted history)."""


@dataclass(frozen=True)
class SessionSummary:
    info: SessionInfo
    cost_usd: float | None
    """None when no model response had a known price."""
    files_changed: int


CANNOT_WRITE = frozenset({8, 10, 13, 14})
"""SQLite's READONLY, IOERR, FULL and CANTOPEN: the file cannot be kept (not a busy lock)."""


def cannot_write(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return "disk is full" in str(exc) or "disk I/O" in str(exc)
    return code & 0xFF in CANNOT_WRITE


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _kept_when_full(
    write: Callable[Concatenate[SessionStore, _P], _R],
) -> Callable[Concatenate[SessionStore, _P], _R]:
    """A write that fails because the disk is full (or the file cannot be written any more)
    goes on in memory: the session keeps running, the person is told once (`on_unsaved`)."""

    @functools.wraps(write)
    def kept(store: SessionStore, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return write(store, *args, **kwargs)
        except sqlite3.OperationalError as exc:
            if store.unsaved or not cannot_write(exc):
                raise
            store.keep_in_memory(exc)
            return write(store, *args, **kwargs)

    return kept


OPEN_RETRY_S = 10.0
"""How long opening the store retries a lock another ValarMind holds while it opens too."""


def _connect(where: str) -> sqlite3.Connection:
    """Open and prepare the file. Two processes opening a new store at once each hold a shared
    lock and want the write lock (for WAL, for the schema): SQLite answers one of them "database
    is locked" at once, without waiting (that wait would deadlock), so that one tries again."""
    deadline = time.monotonic() + OPEN_RETRY_S
    while True:
        db = sqlite3.connect(where, isolation_level=None, check_same_thread=False)
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")  # once per file: WAL stays set
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA + LEDGER_SCHEMA)
            return db
        except sqlite3.OperationalError as exc:
            db.close()
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
        except BaseException:
            db.close()
            raise


class SessionStore:
    """One SQLite file holding every session of the user."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.unsaved = ""
        """Why this session is kept in memory only ("" when it is stored): the file could not
        be opened or written (a full disk: `database or disk is full`)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = _connect(str(path))
        except (sqlite3.OperationalError, OSError) as exc:
            if isinstance(exc, sqlite3.OperationalError) and not cannot_write(exc):
                raise
            # the person still gets the answer; only keeping it is lost, and they are told
            self.unsaved = (f"The session store {path} cannot be written ({exc}); this session "
                            "is kept in memory only and cannot be resumed. Free some disk space "
                            "for the next one to be saved.")
            self._db = _connect(":memory:")
        self.on_unsaved: Callable[[str], None] | None = None
        """Told once when a write fails mid-session and the rest is kept in memory."""
        self._seq: dict[tuple[str, str], int] = {}
        self._masks: dict[str, Callable[[Any], Any]] = {}

    def keep_in_memory(self, exc: Exception) -> None:
        """From now on, write to memory: the file could not be written (`exc`)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._db = _connect(":memory:")
        self.unsaved = (f"The session store {self.path} could not be written ({exc}); the rest "
                        "of this session is kept in memory only. Free some disk space for "
                        "the next session to be saved.")
        if self.on_unsaved is not None:
            self.on_unsaved(self.unsaved)

    def mask_with(self, session_id: str, mask: Callable[[Any], Any]) -> None:
        """Pass everything logged for the session through `mask` (the session's SecretMasker,
        given from above: the store does not know what a secret is)."""
        self._masks[session_id] = mask

    def _masked(self, session_id: str, data: Any) -> Any:
        mask = self._masks.get(session_id)
        return data if mask is None else mask(data)

    @_kept_when_full
    def create(self, project_root: Path, model: str | None) -> str:
        session_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        now = time.time()
        self._db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, '', ?)",
            (session_id, str(project_root), now, now, model),
        )
        return session_id

    def _next(self, table: str, session_id: str) -> int:
        key = (table, session_id)
        if key not in self._seq:
            row = self._db.execute(
                f"SELECT COALESCE(MAX(seq), 0) FROM {table} WHERE session_id = ?", (session_id,)
            ).fetchone()
            self._seq[key] = row[0]
        self._seq[key] += 1
        return self._seq[key]

    @_kept_when_full
    def name_session(self, session_id: str, prompt: str) -> None:
        """Title a session by a prompt that never reached a model (offline), when untitled."""
        self._title(session_id, str(self._masked(session_id, prompt)))

    def _title(self, session_id: str, prompt: str) -> None:
        """A session is named by its first prompt."""
        self._db.execute("UPDATE sessions SET title = ? WHERE id = ? AND title = ''",
                         (prompt[:80], session_id))

    @_kept_when_full
    def append_message(self, session_id: str, message: dict[str, Any]) -> None:
        message = replace_images(self._masked(session_id, message), self._keep_image)
        seq = self._next("messages", session_id)
        self._db.execute(
            "INSERT INTO messages VALUES (?, ?, ?)", (session_id, seq, json.dumps(message))
        )
        text = message_text(message.get("content"))
        if message.get("role") == "user" and not text.startswith(TOOL_IMAGES_HEADER):
            self._title(session_id, text)
            # where the conversation stood when this prompt came: what /rewind cuts back to
            self._db.execute(
                "INSERT OR REPLACE INTO prompts VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) "
                "FROM events WHERE session_id = ?), ?)",
                (session_id, seq, session_id, time.time()),
            )
        self._db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (time.time(), session_id))

    @_kept_when_full
    def append_event(self, session_id: str, event: Event) -> None:
        kind = event_type(event)
        if kind in _NOT_LOGGED or kind == "text_delta" and event.agent_id != "main":
            return
        seq = self._next("events", session_id)
        self._db.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?)",
            (session_id, seq, kind,
             json.dumps(self._masked(session_id, event_to_dict(event)), default=str)),
        )
        if kind == "turn_finished" and event.agent_id == "main":
            # The finished turn holds the whole text, masked as a whole; its deltas were
            # masked one by one, and a secret split across two of them would stay readable.
            self._db.execute("DELETE FROM events WHERE session_id = ? AND type = 'text_delta'",
                             (session_id,))

    def _keep_image(self, url: str) -> str:
        """The stored reference for an image data URL, its bytes kept once."""
        decoded = decode_data_url(url)
        if decoded is None:
            return url
        mime, data = decoded
        digest = hashlib.sha256(data).hexdigest()
        self._db.execute("INSERT OR IGNORE INTO images VALUES (?, ?, ?)", (digest, mime, data))
        return STORED_PREFIX + digest

    def image(self, digest: str) -> tuple[str, bytes] | None:
        """(mime, bytes) of a stored image."""
        row = self._db.execute("SELECT mime, data FROM images WHERE sha256 = ?",
                               (digest,)).fetchone()
        return None if row is None else (row[0], bytes(row[1]))

    def _restored_image(self, url: str) -> str:
        if not url.startswith(STORED_PREFIX):
            return url
        found = self.image(url.removeprefix(STORED_PREFIX))
        if found is None:
            return url
        return f"data:{found[0]};base64," + base64.b64encode(found[1]).decode("ascii")
    @_kept_when_full
    def record_call(self, entry: LedgerEntry) -> None:
        """One model call into the ledger (store/ledger.py), under its `session_id`."""
        seq = self._next("model_calls", entry.session_id)
        self._db.execute(INSERT, (seq, *entry_values(entry)))

    def calls(self, session_id: str | None = None, since: float | None = None
              ) -> list[LedgerEntry]:
        """The ledger's calls, oldest first: one session's, or every session's; from `since`
        (a time.time()) on when given."""
        where, args = _calls_where(session_id, since)
        query = SELECT + where + " ORDER BY at, seq"
        return [entry_from_row(row) for row in self._db.execute(query, args)]

    def spent(self, session_id: str | None = None, since: float | None = None) -> Tally:
        """What the ledger's calls add up to (one session's, or all since `since`), summed in
        SQLite: a budget asks this before every model call."""
        where, args = _calls_where(session_id, since)
        row = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), "
            "0), COALESCE(SUM(cached_tokens), 0), COALESCE(SUM(reasoning_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0), COUNT(*) - COUNT(cost_usd), "
            "COALESCE(SUM(kind = 'agent'), 0) FROM model_calls" + where, args).fetchone()
        calls, prompt, completion, cached, reasoning, cost, unpriced, agent_calls = row
        return Tally(calls, prompt, completion, cached, reasoning, cost, unpriced, agent_calls)

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        """The stored history, images restored as data URLs (what the model is sent)."""
        rows = self._db.execute(
            "SELECT body FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
        return [replace_images(json.loads(body), self._restored_image) for (body,) in rows]

    @_kept_when_full
    def keep_reported_count(self, session_id: str, count: ReportedCount) -> None:
        """The session's newest reported count, in place of the one before."""
        self._db.execute("INSERT OR REPLACE INTO reported_counts VALUES (?, ?, ?, ?, ?)",
                         (session_id, count.model, count.tokens, count.messages, count.digest))

    def reported_count(self, session_id: str) -> ReportedCount | None:
        row = self._db.execute("SELECT model, tokens, messages, digest FROM reported_counts "
                               "WHERE session_id = ?", (session_id,)).fetchone()
        return None if row is None else ReportedCount(*row)

    def events(self, session_id: str) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT body FROM events WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [json.loads(body) for (body,) in rows]

    def interrupted_text(self, session_id: str) -> str:
        """The main agent's text streamed after its last TurnStarted when no TurnFinished
        followed: an answer the process did not live to finish."""
        rows = self._db.execute(
            "SELECT type, json_extract(body, '$.text') FROM events WHERE session_id = ? AND "
            "type IN ('turn_started', 'turn_finished', 'text_delta') AND "
            "json_extract(body, '$.agent_id') = 'main' AND seq > COALESCE((SELECT MAX(seq) "
            "FROM events WHERE session_id = ? AND type = 'turn_started' AND "
            "json_extract(body, '$.agent_id') = 'main'), 0) ORDER BY seq",
            (session_id, session_id),
        ).fetchall()
        if any(kind == "turn_finished" for kind, _ in rows):
            return ""
        return "".join(text or "" for kind, text in rows if kind == "text_delta")

    def prompts(self, session_id: str) -> list[StoredPrompt]:
        """Every user message of the session, oldest first, with when it was sent (None for
        messages stored before prompts were timed)."""
        rows = self._db.execute(
            "SELECT m.seq, m.body, p.at FROM messages m LEFT JOIN prompts p ON "
            "p.session_id = m.session_id AND p.message_seq = m.seq WHERE m.session_id = ? AND "
            "json_extract(m.body, '$.role') = 'user' ORDER BY m.seq", (session_id,))
        found = []
        for seq, body, at in rows:
            found.append(StoredPrompt(seq, message_text(json.loads(body).get("content")), at))
        return found

    def count_messages(self, session_id: str, since: int = 0) -> int:
        """How many messages the session holds from `since` on."""
        row = self._db.execute("SELECT COUNT(*) FROM messages WHERE session_id = ? AND seq >= ?",
                               (session_id, since)).fetchone()
        return int(row[0])

    @_kept_when_full
    def truncate(self, session_id: str, message_seq: int) -> None:
        """Forget the conversation from message `message_seq` on (and the events logged since
        that prompt came), in one transaction: a rewound conversation stays rewound."""
        mark = self._db.execute(
            "SELECT event_seq FROM prompts WHERE session_id = ? AND message_seq = ?",
            (session_id, message_seq)).fetchone()
        with self._transaction():
            self._db.execute("DELETE FROM messages WHERE session_id = ? AND seq >= ?",
                             (session_id, message_seq))
            self._db.execute("DELETE FROM prompts WHERE session_id = ? AND message_seq >= ?",
                             (session_id, message_seq))
            if mark is not None:
                self._db.execute("DELETE FROM events WHERE session_id = ? AND seq > ?",
                                 (session_id, mark[0]))
            first = self._db.execute(
                "SELECT json_extract(body, '$.content') FROM messages WHERE session_id = ? AND "
                "json_extract(body, '$.role') = 'user' ORDER BY seq LIMIT 1",
                (session_id,)).fetchone()
            title = first[0][:80] if first and isinstance(first[0], str) else ""
            self._db.execute("UPDATE sessions SET title = ?, updated = ? WHERE id = ?",
                             (title, time.time(), session_id))
        self._seq.pop(("messages", session_id), None)
        self._seq.pop(("events", session_id), None)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def summaries(self, project_root: Path, limit: int = 20) -> list[SessionSummary]:
        """The project's sessions, newest first, with what a picker shows: cost (from the
        logged usage) and the files their turns changed (from the logged checkpoints)."""
        found = []
        for info in self.list(project_root, limit):
            cost, = self._db.execute(
                "SELECT SUM(json_extract(body, '$.cost_usd')) FROM events WHERE session_id = ? "
                "AND type = 'usage_updated'", (info.id,)).fetchone()
            files, = self._db.execute(
                "SELECT COUNT(DISTINCT j.value) FROM events AS e, json_each(json_extract("
                "e.body, '$.changed')) AS j WHERE e.session_id = ? AND "
                "e.type = 'checkpoint_created'",
                (info.id,)).fetchone()
            found.append(SessionSummary(info, cost, files))
        return found

    def list_ids(self, project_root: str | None, limit: int) -> list[str]:
        """The ids of the project's sessions (every session: None), newest first."""
        return [info.id for info in self.list(None if project_root is None
                                              else Path(project_root), limit)]

    def list(self, project_root: Path | None = None, limit: int = 20) -> list[SessionInfo]:
        query = "SELECT id, project_root, created, updated, title, model FROM sessions"
        args: tuple[Any, ...] = ()
        if project_root is not None:
            query += " WHERE project_root = ?"
            args = (str(project_root),)
        rows = self._db.execute(query + " ORDER BY updated DESC LIMIT ?", (*args, limit))
        return [SessionInfo(*row) for row in rows]

    def close(self) -> None:
        self._db.close()


def _calls_where(session_id: str | None, since: float | None) -> tuple[str, list[Any]]:
    """The ledger query's WHERE clause (or "") and its arguments: one session's calls, those
    from `since` on, or both."""
    where: list[str] = []
    args: list[Any] = []
    if session_id is not None:
        where.append("session_id = ?")
        args.append(session_id)
    if since is not None:
        where.append("at >= ?")
        args.append(since)
    return (" WHERE " + " AND ".join(where) if where else ""), args
