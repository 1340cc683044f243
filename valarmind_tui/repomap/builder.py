"""RepoMap: scan (stat only) -> cached tags -> graph -> personalized rank -> rendered map.

Three cache levels make the warm path cheap: a result for the same file set and request is
returned as is; the ranked graph of the same file set is reused for a new request; per-file tags
are reused when path, mtime and size match, so an edit re-parses only that file.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from valarmind_tui.repomap.cache import TagCache
from valarmind_tui.repomap.files import list_files
from valarmind_tui.repomap.graph import build_graph, edge_weights, rank_definitions, rank_file_graph
from valarmind_tui.repomap.languages import language_for, queries
from valarmind_tui.repomap.render import estimate_tokens, fit
from valarmind_tui.repomap.tags import MAX_FILE_BYTES, extract, skip_reason
from valarmind_tui.safe_files import read_regular_bytes

RANKED_KEPT = 200
_POOL_MIN_BYTES = 1_000_000
"""Less source than this parses faster in-process than a pool starts (~4 MB/s per CPU)."""
_STORE_BATCH = 256


@dataclass
class RepoMapResult:
    """A rendered map and how it was made."""

    text: str
    files: list[str]
    """Files that appear in the map, in map order."""
    tags_count: int
    """Definitions plus references found in the whole repository."""
    skipped: dict[str, int]
    """Files not parsed, by reason (huge, binary, minified, generated, unreadable)."""
    ranked: list[dict[str, Any]] = field(default_factory=list)
    """Best definitions first: {"file", "name", "rank"} (at most 200)."""
    tokens: int = 0
    """Estimated tokens of `text`."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


@dataclass
class BuildStats:
    """What the last build did (for tests and /map --stats)."""

    files_seen: int = 0
    parsed: int = 0
    """Files read and parsed in this build."""
    level: str = ""
    """Which cache answered: result, graph, tags (parsed only what changed) or cold."""
    workers: int = 0
    """Processes that parsed (1: in-process; 0: nothing to parse)."""


class RepoMap:
    """The repository map of one project root."""

    def __init__(self, root: Path | str, cache_dir: Path | None = None, *,
                 references: str = "query", workers: int | None = None) -> None:
        """`references`: "query" (the tags query's reference patterns) or "tokens" (every
        identifier; see tags.extract); `workers`: processes for a cold parse (default: CPUs)."""
        self.root = Path(root).resolve()
        self.references = references
        self.workers = workers
        self._cache_dir = cache_dir
        self._cache: TagCache | None = None
        self.stats = BuildStats()

    def build(self, token_budget: int = 1024, chat_files: Iterable[str] = (),
              mentioned_idents: Iterable[str] = ()) -> RepoMapResult:
        """The map within `token_budget`, personalized to chat files and mentioned names."""
        chat = sorted({self._relative(p) for p in chat_files})
        mentioned = sorted(set(mentioned_idents))
        entries = self._scan()
        self.stats = BuildStats(files_seen=len(entries))
        fingerprint = hashlib.sha1(repr((self.references, entries)).encode()).hexdigest()
        key = hashlib.sha1(repr((fingerprint, token_budget, chat, mentioned)).encode()).hexdigest()
        cache = self._open_cache()
        blob = cache.get_result(key)
        if blob is not None:
            self.stats.level = "result"
            return RepoMapResult(**marshal.loads(blob))
        state = self._graph_state(entries, fingerprint)
        result = _rank_and_render(state, token_budget, chat, mentioned)
        cache.put_result(key, marshal.dumps(asdict(result)), time.time_ns())
        return result

    def file_tags(self) -> dict[str, tuple[list, dict[str, int]]]:
        """Every parsed file's (definitions, reference counts), through the per-file cache
        (only changed files are parsed). A definition is (name, line, kind, signature, parent),
        as in `FileTags.dumps`."""
        entries = self._scan()
        self.stats = BuildStats(files_seen=len(entries))
        return self._file_tags(entries)[0]

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

    def _scan(self) -> list[tuple[str, int, int]]:
        """(path, mtime_ns, size) of every file with a grammar: a stat, never a read."""
        entries = []
        for rel in list_files(self.root):
            if language_for(rel) is None:
                continue
            try:
                st = os.stat(self.root / rel)
            except OSError:
                continue
            entries.append((rel, st.st_mtime_ns, st.st_size))
        return entries

    def _graph_state(self, entries: list[tuple[str, int, int]], fingerprint: str) -> dict:
        cache = self._open_cache()
        blob = cache.get_graph(fingerprint)
        if blob is not None:
            self.stats.level = "graph"
            return marshal.loads(blob)
        tags, skipped = self._file_tags(entries)
        files = sorted(tags)
        defs = [tags[f][0] for f in files]
        refs = [tags[f][1] for f in files]
        graph = build_graph(files, [{d[0] for d in file_defs} for file_defs in defs], refs)
        state = {
            "graph": graph.to_tuple(),
            "defs": defs,
            "tags_count": sum(len(d) for d in defs) + sum(sum(r.values()) for r in refs),
            "skipped": skipped,
        }
        cache.put_graph(fingerprint, marshal.dumps(state))
        return state

    def _file_tags(self, entries: list[tuple[str, int, int]]
                   ) -> tuple[dict[str, tuple[list, dict[str, int]]], dict[str, int]]:
        """Tags of every file, parsing only files whose mtime or size changed."""
        cache = self._open_cache()
        rows = cache.file_rows()
        live = {rel for rel, _, _ in entries}
        cache.drop_files([p for p in rows if p not in live])
        tags: dict[str, tuple[list, dict[str, int]]] = {}
        skipped: dict[str, int] = {}
        todo: list[tuple[str, int, int]] = []
        for rel, mtime, size in entries:
            row = rows.get(rel)
            if row is not None and row[0] == mtime and row[1] == size:
                _collect(rel, row[2], row[3], tags, skipped)
            else:
                todo.append((rel, mtime, size))
        self.stats.level = "tags" if rows else "cold"
        # Rows are stored and decoded as workers return them, while the rest still parse.
        batch: list[tuple[str, int, int, str | None, bytes | None]] = []
        plan = _pool_plan(todo, self.workers)
        self.stats.workers = plan[1] if todo else 0
        for row in _parse_all(self.root, todo, self.references, plan):
            if row[3] != "huge":
                self.stats.parsed += 1
            _collect(row[0], row[3], row[4], tags, skipped)
            batch.append(row)
            if len(batch) >= _STORE_BATCH:
                cache.put_files(batch)
                batch = []
        cache.put_files(batch)
        return tags, skipped


def _collect(rel: str, reason: str | None, data: bytes | None,
             tags: dict[str, tuple[list, dict[str, int]]], skipped: dict[str, int]) -> None:
    if reason is not None:
        skipped[reason] = skipped.get(reason, 0) + 1
    elif data is not None:
        tags[rel] = marshal.loads(data)


def _parse_one(job: tuple[str, str, int, int, str]
               ) -> tuple[str, int, int, str | None, bytes | None]:
    root, rel, mtime, size, references = job
    if size > MAX_FILE_BYTES:
        return rel, mtime, size, "huge", None
    try:
        src = read_regular_bytes(os.path.join(root, rel))
    except OSError:
        return rel, mtime, size, "unreadable", None
    reason = skip_reason(src, rel)
    if reason is not None:
        return rel, mtime, size, reason, None
    lang = language_for(rel)
    try:
        return rel, mtime, size, None, extract(src, lang, references).dumps()  # type: ignore[arg-type]
    except Exception:  # a grammar crash on one odd file must not sink the map
        return rel, mtime, size, "parse_error", None


def _cpus() -> int:
    """CPUs this process may run on (the affinity mask in a container, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _pool_plan(todo: Sequence[tuple[str, int, int]], workers: int | None) -> tuple[str, int]:
    """(start method, processes) for parsing `todo`; ("", 1) parses in-process."""
    workers = min(workers or _cpus(), 8)
    # fork is cheapest, but forking a process that runs other threads can deadlock; a
    # forkserver costs more to start, so it needs more work to pay off.
    method = "fork" if threading.active_count() == 1 else "forkserver"
    work = sum(size for _, _, size in todo if size <= MAX_FILE_BYTES)
    if work < _POOL_MIN_BYTES * (1 if method == "fork" else 2) or workers < 2:
        return "", 1
    return method, workers


def _warm_queries(paths: Iterable[str]) -> None:
    """Compile the needed grammars and queries once, before forking: the workers inherit them
    instead of each importing tree-sitter and compiling its own."""
    for lang in sorted({language_for(p) for p in paths} - {None}):
        try:
            queries(lang)  # type: ignore[arg-type]
        except Exception:  # the worker meets the same error and reports the file as skipped
            continue


def _parse_all(root: Path, todo: Sequence[tuple[str, int, int]], references: str,
               plan: tuple[str, int]) -> Iterator[tuple[str, int, int, str | None, bytes | None]]:
    jobs = [(str(root), rel, mtime, size, references) for rel, mtime, size in todo]
    method, workers = plan
    if not method:
        yield from map(_parse_one, jobs)
        return
    import multiprocessing

    ctx = multiprocessing.get_context(method)
    if method == "fork":
        _warm_queries({rel for _, rel, _, _, _ in jobs})
    jobs.sort(key=lambda j: -j[3])  # big files first: better load balance
    with ctx.Pool(workers) as pool:
        yield from pool.imap_unordered(_parse_one, jobs, chunksize=8)

def _rank_and_render(state: dict, token_budget: int, chat: list[str],
                     mentioned: list[str]) -> RepoMapResult:
    from valarmind_tui.repomap.graph import Graph

    graph = Graph(*state["graph"])
    index = {f: i for i, f in enumerate(graph.files)}
    chat_ids = {index[f] for f in chat if f in index}
    mentioned_set = set(mentioned)
    personal = {i: 1.0 for i in chat_ids}
    for i, f in enumerate(graph.files if mentioned_set else ()):
        parts = set(Path(f).with_suffix("").parts)
        if parts & mentioned_set:
            personal[i] = 1.0
    weights = edge_weights(graph, chat_ids, mentioned_set)
    rank = rank_file_graph(graph, weights, personal or None)
    ranked = rank_definitions(graph, rank, weights, exclude=chat_ids,
                              limit=max(RANKED_KEPT, token_budget // 4, 1))
    text, used = fit(graph.files, state["defs"], [(f, n) for _, f, n in ranked], token_budget)
    shown: list[str] = []
    for _, f, _ in ranked[:used]:
        if graph.files[f] not in shown:
            shown.append(graph.files[f])
    return RepoMapResult(
        text=text, files=shown, tags_count=state["tags_count"], skipped=dict(state["skipped"]),
        ranked=[{"file": graph.files[f], "name": n, "rank": r} for r, f, n in ranked[:RANKED_KEPT]],
        tokens=estimate_tokens(text))

