"""The cold part of a map: parse what changed (in a process pool when it pays), build the
graph with resolved imports, rank and render within the budget. Imported only when the result
cache misses, so a warm map never loads tree-sitter, the graph or the tokenizer.
"""

from __future__ import annotations

import marshal
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from valarmind_tui.repomap.cache import TagCache
from valarmind_tui.repomap.draft import DRAFT_LANGS, draft_file
from valarmind_tui.repomap.files import Changed, Entry, Stamp, content_digest, read_checked
from valarmind_tui.repomap.graph import (
    Graph,
    build_graph,
    edge_weights,
    rank_definitions,
    rank_file_graph,
    spread,
)
from valarmind_tui.repomap.imports import Resolver
from valarmind_tui.repomap.languages import language_for, queries
from valarmind_tui.repomap.render import fit
from valarmind_tui.repomap.tags import MAX_FILE_BYTES, extract, skip_reason

RANKED_KEPT = 200
_POOL_MIN_BYTES = 1_000_000
"""Less work than this parses faster in-process than a pool starts (~4 MB/s per CPU)."""
_FILE_COST_BYTES = 600
"""A file's own cost (open, read, a parser and two query cursors), as bytes of source: ~0.15
ms, so 9,000 tiny files are a pool's work though they hold 400 kB."""

Tags = dict[str, tuple[list, dict[str, int], list]]
"""file -> (definitions, reference counts, imports) as cached."""
Row = tuple[str, int, int, int, int, str | None, str | None, bytes | None]
"""A file's cache row: path, stamp, digest, skipped reason, tags."""
_STORE_BATCH = 4096


def file_tags(root: Path, cache: TagCache, entries: list[Entry], references: str,
              workers: int | None, stats: Any, draft_above: int | None = None, *,
              to_render: bool = False, only: Callable[[str], bool] | None = None,
              racy: Mapping[str, str] | None = None) -> tuple[Tags, dict[str, int]]:
    """Tags of every file, parsing only files whose stamp changed. With `draft_above`, when
    more bytes than that of draftable source changed, those files are read as drafts
    (`draft.py`; not cached) and only the rest is parsed. `to_render`: a map is drawn next, so
    a parsing pool's wait loads the tokenizer meanwhile. `only`: the entries are some of the
    project's files, so the cached tags of the others are not dropped. `racy`: the content
    digest of each file changed too recently for its stamp to vouch for it (`files.is_racy`);
    such a file's row keeps the digest of what was parsed, and is used only while it matches."""
    racy = racy or {}
    rows = cache.file_rows()
    live = {e[0] for e in entries}
    cache.drop_files([p for p in rows if p not in live and (only is None or only(p))])
    tags: Tags = {}
    skipped: dict[str, int] = {}
    todo: list[Entry] = []
    settled: list[Row] = []
    for entry in entries:
        rel = entry[0]
        row = rows.get(rel)
        if row is not None and row[0] == entry[1:]:
            if row[1] is None:
                _collect(rel, row[2], row[3], tags, skipped)
                continue
            if (racy.get(rel) or _digest_of(root, entry)) == row[1]:
                _collect(rel, row[2], row[3], tags, skipped)
                if rel not in racy:  # the stamp vouches for it from now on
                    settled.append((*entry, None, row[2], row[3]))
                continue
        todo.append(entry)
    cache.put_files(settled)
    stats.level = "tags" if rows else "cold"
    if draft_above is not None and _draftable_bytes(todo) > draft_above:
        todo, stats.workers = _draft_all(root, todo, tags, skipped, workers)
        stats.level = "draft"
    plan = _pool_plan(todo, workers)
    if plan[0] == "child":
        todo = _parse_in_child(root, cache, references, todo, racy, tags, skipped, stats,
                               to_render)
        plan = ("", 1)
    if todo:  # else the drafting processes, or none
        stats.workers = plan[1]

    def parsed_rows() -> Iterator[Row]:
        for rel, stamp, reason, data, digest in _parse_all(root, todo, references, plan,
                                                           to_render, racy):
            if reason == "changed":  # edited since the scan: parsed again by the next build
                skipped["changed"] = skipped.get("changed", 0) + 1
                continue
            if reason != "huge":
                stats.parsed += 1
            if digest is not None and racy.get(rel) != digest:  # changed since the scan
                stats.unsettled = True
            _collect(rel, reason, data, tags, skipped)
            yield rel, *stamp, digest, reason, data

    # Rows are decoded and stored as workers return them, while the rest still parse.
    _store(cache, parsed_rows())
    return tags, skipped


def store_tags(root: Path, cache: TagCache, todo: list[Entry], references: str,
               racy: Mapping[str, str]) -> None:
    """Parse `todo` (in a pool when it pays) into the per-file cache, decoding nothing: what a
    child process does for a parent that runs threads (`parse_child.py`)."""
    plan = _pool_plan(todo, None)
    _store(cache, ((rel, *stamp, digest, reason, data) for rel, stamp, reason, data, digest
                   in _parse_all(root, todo, references, plan, False, racy)
                   if reason != "changed"))


def _store(cache: TagCache, rows: Iterable[Row]) -> None:
    """Store rows in transactions of _STORE_BATCH: few commits, and no write lock held for a
    whole parse (another process building the same project's map waits at most 10 s)."""
    batch: list[Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= _STORE_BATCH:
            cache.put_files(batch)
            batch = []
    cache.put_files(batch)


def _parse_in_child(root: Path, cache: TagCache, references: str, todo: list[Entry],
                    racy: Mapping[str, str], tags: Tags, skipped: dict[str, int], stats: Any,
                    to_render: bool) -> list[Entry]:
    """Parse `todo` in a child process (`parse_child.py`) and collect what it cached; the
    entries left to parse here. The map's tokenizer loads meanwhile."""
    from valarmind_tui.repomap.parse_child import parse_in_child

    if not parse_in_child(root, cache.path, references, todo, dict(racy),
                          _load_budget_encodings if to_render else None):
        return todo
    stats.in_child = True
    rows = cache.file_rows()
    left: list[Entry] = []
    for entry in todo:
        row = rows.get(entry[0])
        if row is not None and row[0] == entry[1:] and row[1] == racy.get(entry[0]):
            if row[2] != "huge":
                stats.parsed += 1
            _collect(entry[0], row[2], row[3], tags, skipped)
        else:
            left.append(entry)
    return left


def _digest_of(root: Path, entry: Entry) -> str | None:
    try:
        return content_digest(read_checked(f"{root}/{entry[0]}", entry[1:]))
    except OSError:
        return None


def graph_state(tags: Tags, skipped: dict[str, int]) -> dict:
    """The ranked graph's inputs, as cached: graph, definitions, tag count, skipped files."""
    files = sorted(tags)
    defs = [tags[f][0] for f in files]
    refs = [tags[f][1] for f in files]
    graph = build_graph(files, [{d[0] for d in file_defs} for file_defs in defs], refs,
                        resolve_imports(files, [tags[f][2] for f in files]))
    return {
        "graph": graph.to_tuple(),
        "defs": defs,
        "tags_count": sum(len(d) for d in defs) + sum(sum(r.values()) for r in refs),
        "skipped": skipped,
    }


def resolve_imports(files: list[str], imports: list[list]) -> list[dict[int, list[str]]]:
    """Per file: the project files it imports, each with the names imported from it by name
    (`from m import a`); a submodule imported by name (`from pkg import mod`) is a module."""
    resolver = Resolver(files)
    out: list[dict[int, list[str]]] = []
    for index, written in enumerate(imports):
        found: dict[int, list[str]] = {}
        for spec, names in written:
            if not names:
                target = resolver.resolve(index, spec)
                if target is not None and target != index:
                    found.setdefault(target, [])
                continue
            for name in names:
                sub = resolver.resolve(index, spec + name if spec.endswith(".")
                                       else f"{spec}.{name}")
                if sub is not None:
                    if sub != index:
                        found.setdefault(sub, [])
                    continue
                target = resolver.resolve(index, spec)
                if target is not None and target != index:
                    found.setdefault(target, []).append(name)
        out.append(found)
    return out


def rank_and_render(state: dict, token_budget: int, chat: list[str],
                    mentioned: list[str]) -> dict[str, Any]:
    """The fields of a RepoMapResult for this request."""
    from valarmind_tui.core.tokenizer import budget_tokens

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
    ranked = spread(rank_definitions(graph, rank, weights, exclude=chat_ids,
                                     limit=max(RANKED_KEPT, token_budget // 4, 1)), graph.files)
    text, used = fit(graph.files, state["defs"], [(f, n) for _, f, n in ranked], token_budget,
                     budget_tokens)
    shown: list[str] = []
    for _, file_index, _ in ranked[:used]:
        if graph.files[file_index] not in shown:
            shown.append(graph.files[file_index])
    return {
        "text": text, "files": shown, "tags_count": state["tags_count"],
        "skipped": dict(state["skipped"]),
        "ranked": [{"file": graph.files[f], "name": n, "rank": r}
                   for r, f, n in ranked[:RANKED_KEPT]],
        "tokens": budget_tokens(text),
    }


def _draftable_bytes(todo: Sequence[Entry]) -> int:
    return sum(e[2] for e in todo if e[2] <= MAX_FILE_BYTES and language_for(e[0]) in DRAFT_LANGS)


def _draft_all(root: Path, todo: list[Entry], tags: Tags, skipped: dict[str, int],
               workers: int | None) -> tuple[list[Entry], int]:
    """Draft tags of the draftable files into `tags` (in a pool when it pays, the tokenizer the
    map is then rendered with loading meanwhile); the files left to parse, and the processes
    that drafted."""
    rest: list[Entry] = []
    drafted: list[Entry] = []
    jobs: list[tuple[str, str, str, Stamp]] = []
    for entry in todo:
        lang = language_for(entry[0])
        if lang not in DRAFT_LANGS or entry[2] > MAX_FILE_BYTES:
            rest.append(entry)
        else:
            drafted.append(entry)
            jobs.append((str(root), entry[0], lang, entry[1:]))
    method, workers = _pool_plan(drafted, workers)
    if method != "fork":  # drafts are not cached, so a child process could not hand them over
        _gather_drafts(map(draft_file, jobs), tags, skipped)
        return rest, 1
    import multiprocessing

    with multiprocessing.get_context(method).Pool(workers) as pool:
        # started after the workers: a fork must not copy a process running another thread
        tokenizer = threading.Thread(target=_load_budget_encodings, name="tokenizer",
                                     daemon=True)
        tokenizer.start()
        _gather_drafts(pool.imap_unordered(draft_file, jobs, chunksize=16), tags, skipped)
    tokenizer.join()
    return rest, workers


def _gather_drafts(results: Iterable[tuple[str, str | None, tuple[Any, ...] | None]],
                   tags: Tags, skipped: dict[str, int]) -> None:
    for rel, reason, found in results:
        if found is None:
            skipped[reason or "parse_error"] = skipped.get(reason or "parse_error", 0) + 1
        else:
            tags[rel] = found


def _load_budget_encodings() -> None:
    from valarmind_tui.core.tokenizer import BUDGET_ENCODINGS, encoding

    for name in BUDGET_ENCODINGS:
        encoding(name)


def _collect(rel: str, reason: str | None, data: bytes | None, tags: Tags,
             skipped: dict[str, int]) -> None:
    if reason is not None:
        skipped[reason] = skipped.get(reason, 0) + 1
    elif data is not None:
        tags[rel] = marshal.loads(data)


def _parse_one(job: tuple[str, str, Stamp, str, bool]
               ) -> tuple[str, Stamp, str | None, bytes | None, str | None]:
    """(root, file, stamp, references, racy) -> (file, stamp, why it was skipped or None, its
    tags as cached, the digest of what was parsed when `racy`)."""
    root, rel, stamp, references, racy = job
    if stamp[1] > MAX_FILE_BYTES:
        return rel, stamp, "huge", None, None
    try:
        src = read_checked(f"{root}/{rel}", stamp)
    except Changed:
        return rel, stamp, "changed", None, None
    except OSError:
        return rel, stamp, "unreadable", None, None
    digest = content_digest(src) if racy else None
    reason = skip_reason(src, rel)
    if reason is not None:
        return rel, stamp, reason, None, digest
    lang = language_for(rel)
    try:
        # why the ignore below: lang is one of the pack's names
        return rel, stamp, None, extract(src, lang, references).dumps(), digest  # type: ignore[arg-type]  # why: above
    except Exception:  # a grammar crash on one odd file must not sink the map
        return rel, stamp, "parse_error", None, digest


def _cpus() -> int:
    """CPUs this process may run on (the affinity mask in a container, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _pool_plan(todo: Sequence[Entry], workers: int | None) -> tuple[str, int]:
    """(start method, processes) for parsing `todo`; ("", 1) parses in-process. Only a process
    that runs no other thread forks a pool (`valarmind map`, the background refiner): forking
    beside threads can deadlock, and the other start methods run `python -c`, which puts the
    working directory, the project, first on the import path (a repository's
    `multiprocessing/` ran in the forkserver and its resource tracker). Beside threads (the
    TUI) a parse that pays for a pool is handed to a child process ("child": `parse_child.py`)."""
    workers = min(workers or _cpus(), 8)
    work = sum(e[2] + _FILE_COST_BYTES for e in todo if e[2] <= MAX_FILE_BYTES)
    if work < _POOL_MIN_BYTES or workers < 2:
        return "", 1
    return ("child" if threading.active_count() > 1 else "fork"), workers


def _warm_queries(paths: Iterable[str]) -> None:
    """Compile the needed grammars and queries once, before forking: the workers inherit them
    instead of each importing tree-sitter and compiling its own."""
    for lang in sorted({lang for p in paths if (lang := language_for(p)) is not None}):
        try:
            queries(lang)
        except Exception:  # the worker meets the same error and reports the file as skipped
            continue


def _parse_all(root: Path, todo: Sequence[Entry], references: str, plan: tuple[str, int],
               to_render: bool = False, racy: Mapping[str, str] | None = None
               ) -> Iterator[tuple[str, Stamp, str | None, bytes | None, str | None]]:
    racy = racy or {}
    jobs = [(str(root), e[0], e[1:], references, e[0] in racy) for e in todo]
    method, workers = plan
    if not method:
        yield from map(_parse_one, jobs)
        return
    import multiprocessing

    ctx = multiprocessing.get_context(method)
    _warm_queries({j[1] for j in jobs})
    jobs.sort(key=lambda j: -j[2][1])  # big files first: better load balance
    # the big files first, a few per message; thousands of tiny ones in bigger messages
    size = max(8, min(256, len(jobs) // (workers * 16)))
    chunks = [[j[1:3] + j[4:] for j in jobs[i:i + size]] for i in range(0, len(jobs), size)]
    global _chunk_context
    _chunk_context = (str(root), references)  # the forked workers inherit it
    tokenizer = threading.Thread(target=_load_budget_encodings, name="tokenizer", daemon=True)
    with ctx.Pool(workers) as pool:
        if to_render:  # started after the workers: a fork must not copy a running thread
            tokenizer.start()
        for blob in pool.imap_unordered(_parse_chunk, chunks):
            yield from marshal.loads(blob)
    if to_render:
        tokenizer.join()


_chunk_context = ("", "query")
"""(root, references) of the pool being forked: a chunk's jobs carry only file and stamp."""


def _parse_chunk(jobs: list[tuple[str, Stamp, bool]]) -> bytes:
    """A pool worker's share: its results in one marshal message (a pickled tuple per file
    cost the parent as much CPU as a tiny file's parse)."""
    root, references = _chunk_context
    return marshal.dumps([_parse_one((root, rel, stamp, references, racy))
                          for rel, stamp, racy in jobs])
