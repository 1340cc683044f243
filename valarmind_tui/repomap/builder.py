"""RepoMap: scan (stat only) -> cached tags -> graph -> rank -> rendered map.

Three cache levels make the warm path cheap: a result for the same file stamps (path, mtime,
size, ctime, inode: `files.Stamp`) and request (budget, chat files, mentioned names) is returned
as is; the ranked graph of the same file set is reused for a new request; per-file tags are
reused when the path and stamp match, so an edit re-parses only that file. A file changed within
`files.RACY_NS` of the scan is also known by its content's digest, so an edit in the same clock
tick is never served stale. The warm path imports only this module, the file scan and the SQLite
cache, and in a git repository reuses git's filtered listing: one `git ls-files`, one stat per
file, two queries. The rest (`pipeline`) loads when the result cache misses.
"""

from __future__ import annotations

import hashlib
import marshal
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from valarmind_tui.repomap.cache import TagCache
from valarmind_tui.repomap.files import (
    IGNORED_DIRS,
    Entry,
    content_digest,
    is_racy,
    read_checked,
    scan,
)
from valarmind_tui.repomap.gc_pause import gc_paused
from valarmind_tui.repomap.languages import EXTENSIONS, language_for

DRAFT_ABOVE_BYTES = 4_000_000
"""Python source to parse past which a drafted map comes first: ~1 s of CPU to parse, more
on a machine whose other cores are busy (sympy: 25 MB)."""


class RepoMapResult:
    """A rendered map and how it was made. (Plain classes, not dataclasses: importing
    dataclasses costs a warm `valarmind map` ~20 ms of its 0.3 s.)"""

    __slots__ = ("text", "files", "tags_count", "skipped", "ranked", "tokens", "draft")

    def __init__(self, text: str, files: list[str], tags_count: int, skipped: dict[str, int],
                 ranked: list[dict[str, Any]] | None = None, tokens: int = 0,
                 draft: bool = False) -> None:
        self.text = text
        self.files = files
        """Files that appear in the map, in map order."""
        self.tags_count = tags_count
        """Definitions plus references found in the whole repository."""
        self.skipped = skipped
        """Files not parsed, by reason (huge, binary, minified, generated, unreadable)."""
        self.ranked = ranked if ranked is not None else []
        """Best definitions first: {"file", "name", "rank"} (at most 200); name "" is a module
        ranked for its imports that defines nothing to show."""
        self.tokens = tokens
        """Tokens of `text`: the most of tiktoken's cl100k_base and o200k_base (an estimate
        when they are not installed); never more than the budget."""
        self.draft = draft
        """Drawn from draft tags (`draft.py`) because the exact parse was big: `refine.py`
        builds the exact map in the background, and the next build returns it once ready."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RepoMapResult) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"RepoMapResult(files={len(self.files)}, tokens={self.tokens})"

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "files": list(self.files), "tags_count": self.tags_count,
                "skipped": dict(self.skipped), "ranked": [dict(r) for r in self.ranked],
                "tokens": self.tokens, "draft": self.draft}

    def to_json(self) -> str:
        import json

        return json.dumps(self.to_dict(), ensure_ascii=False)


class BuildStats:
    """What the last build did (for tests and /map --stats)."""

    def __init__(self, files_seen: int = 0) -> None:
        self.files_seen = files_seen
        self.parsed = 0
        """Files read and parsed in this build."""
        self.level = ""
        """Which cache answered: result, graph, tags (parsed only what changed) or cold; draft
        when draft tags stood in for a big parse, draft-result when a draft map was cached."""
        self.workers = 0
        """Processes that parsed (1: in-process; 0: nothing to parse)."""
        self.in_child = False
        """The parse ran in a child process (`parse_child.py`: this process runs threads)."""
        self.unsettled = False
        """A racy file changed between the scan and its parse: this build's graph and result
        are not cached."""


class RepoMap:
    """The repository map of one project root."""

    def __init__(self, root: Path | str, cache_dir: Path | None = None, *,
                 references: str = "query", workers: int | None = None,
                 draft_above: int = DRAFT_ABOVE_BYTES,
                 only: Callable[[str], bool] | None = None) -> None:
        """`references`: "query" (the tags query's reference patterns) or "tokens" (every
        identifier; see tags.extract); `workers`: processes for a cold parse (default: CPUs);
        `draft_above`: bytes of changed Python past which `build(draft=True)` drafts; `only`:
        the files (relative POSIX paths) the map is made of, all with a grammar by default
        (/init maps the shipped code only: a Rust linter's 27,000 Python fixtures are not
        parsed). Other files' cached tags are kept for the whole map."""
        self.root = Path(root).resolve()
        self.references = references
        self.workers = workers
        self.draft_above = draft_above
        self.only = only
        self._cache_dir = cache_dir
        self._cache: TagCache | None = None
        self.stats = BuildStats()

    def build(self, token_budget: int = 1024, chat_files: Iterable[str] = (),
              mentioned_idents: Iterable[str] = (), *, draft: bool = False) -> RepoMapResult:
        """The map within `token_budget`, personalized to chat files and mentioned names.
        With `draft`, a big parse is replaced by draft tags (`result.draft`): seconds sooner
        on a cold sympy-size tree; `refine.py` then builds the exact map."""
        with gc_paused():
            return self._build(token_budget, chat_files, mentioned_idents, draft)

    def _build(self, token_budget: int, chat_files: Iterable[str],
               mentioned_idents: Iterable[str], draft: bool) -> RepoMapResult:
        chat = sorted({self._relative(p) for p in chat_files})
        mentioned = sorted(set(mentioned_idents))
        started = time.time_ns()
        cache = self._open_cache()
        entries = self._scan()
        self.stats = BuildStats(files_seen=len(entries))
        racy = self._racy_digests(entries, started)
        fingerprint = hashlib.sha1(marshal.dumps((self.references, entries, sorted(racy.items()))
                                                 )).hexdigest()
        key = hashlib.sha1(repr((fingerprint, token_budget, chat, mentioned)).encode()).hexdigest()
        blob = cache.get_result(key)
        if blob is not None:
            self.stats.level = "result"
            return RepoMapResult(**marshal.loads(blob))
        draft_key = hashlib.sha1(f"draft:{key}".encode()).hexdigest()
        blob = cache.get_result(draft_key) if draft else None
        if blob is not None:
            self.stats.level = "draft-result"
            return RepoMapResult(**marshal.loads(blob))
        from valarmind_tui.repomap import pipeline

        graph_blob = cache.get_graph(fingerprint)
        if graph_blob is not None:
            self.stats.level = "graph"
            state = marshal.loads(graph_blob)
        else:
            state = pipeline.graph_state(*self._tags(entries, draft, to_render=True, racy=racy))
            if self.stats.level != "draft" and not self.stats.unsettled:
                cache.put_graph(fingerprint, marshal.dumps(state))
        fields = pipeline.rank_and_render(state, token_budget, chat, mentioned)
        fields["draft"] = self.stats.level == "draft"
        if not self.stats.unsettled:
            cache.put_result(draft_key if fields["draft"] else key, marshal.dumps(fields),
                             time.time_ns())
        return RepoMapResult(**fields)

    def file_tags(self) -> dict[str, tuple[list, dict[str, int]]]:
        """Every parsed file's (definitions, reference counts), through the per-file cache
        (only changed files are parsed). A definition is (name, line, kind, signature, parent),
        as in `FileTags.dumps`."""
        with gc_paused():
            return self._file_tags()

    def _file_tags(self) -> dict[str, tuple[list, dict[str, int]]]:
        started = time.time_ns()
        entries = self._scan()
        self.stats = BuildStats(files_seen=len(entries))
        racy = self._racy_digests(entries, started)
        return {f: (t[0], t[1]) for f, t in self._tags(entries, racy=racy)[0].items()}

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def _open_cache(self) -> TagCache:
        if self._cache is None:
            self._cache = TagCache(self.root, self._cache_dir)
        return self._cache

    def _relative(self, path: str) -> str:
        p = Path(path)
        if p.is_absolute():
            try:
                return p.resolve().relative_to(self.root).as_posix()
            except ValueError:
                return p.as_posix()
        return p.as_posix()

    def _scan(self) -> list[Entry]:
        """The entry (path and stamp) of every file with a grammar: a stat, never a read."""
        only = self.only
        if only is None:
            return scan(self.root, lambda rel: language_for(rel) is not None, self._open_cache(),
                        _LISTING_TAG)
        return scan(self.root, lambda rel: language_for(rel) is not None and only(rel))

    def _racy_digests(self, entries: list[Entry], started: int) -> dict[str, str]:
        """The content digest of each file changed too recently for its stamp to vouch for it
        (a few files, just edited: read, not parsed)."""
        out: dict[str, str] = {}
        for entry in entries:
            if is_racy(entry, started):
                try:
                    out[entry[0]] = content_digest(read_checked(f"{self.root}/{entry[0]}",
                                                                entry[1:]))
                except OSError:
                    out[entry[0]] = ""
        return out

    def _tags(self, entries: list[Entry], draft: bool = False, *, to_render: bool = False,
              racy: dict[str, str] | None = None) -> tuple[dict, dict[str, int]]:
        from valarmind_tui.repomap import pipeline

        return pipeline.file_tags(self.root, self._open_cache(), entries, self.references,
                                  self.workers, self.stats,
                                  self.draft_above if draft else None, to_render=to_render,
                                  only=self.only, racy=racy)


_LISTING_TAG = repr((sorted(EXTENSIONS.items()), sorted(IGNORED_DIRS)))
"""What picks the files from git's listing: a changed table makes the kept listing miss."""
