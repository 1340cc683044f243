"""The cold part of a map: parse what changed (in a process pool when it pays), build the
graph with resolved imports, rank and render within the budget. Imported only when the result
cache misses, so a warm map never loads tree-sitter, the graph or the tokenizer.
"""

from __future__ import annotations

import marshal
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from valarmind_tui.repomap.cache import TagCache
from valarmind_tui.repomap.draft import DRAFT_LANGS, draft_file
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
_STORE_BATCH = 256

Tags = dict[str, tuple[list, dict[str, int], list]]
"""file -> (definitions, reference counts, imports) as cached."""


def file_tags(root: Path, cache: TagCache, entries: list[tuple[str, int, int]], references: str,
              workers: int | None, stats: Any, draft_above: int | None = None, *,
              to_render: bool = False, only: Callable[[str], bool] | None = None
              ) -> tuple[Tags, dict[str, int]]:
    """Tags of every file, parsing only files whose mtime or size changed. With `draft_above`,
    when more bytes than that of draftable source changed, those files are read as drafts
    (`draft.py`; not cached) and only the rest is parsed. `to_render`: a map is drawn next, so
    a parsing pool's wait loads the tokenizer meanwhile. `only`: the entries are some of the
    project's files, so the cached tags of the others are not dropped."""
    rows = cache.file_rows()
    live = {rel for rel, _, _ in entries}
    cache.drop_files([p for p in rows if p not in live and (only is None or only(p))])
    tags: Tags = {}
    skipped: dict[str, int] = {}
    todo: list[tuple[str, int, int]] = []
    for rel, mtime, size in entries:
        row = rows.get(rel)
        if row is not None and row[0] == mtime and row[1] == size:
            _collect(rel, row[2], row[3], tags, skipped)
        else:
            todo.append((rel, mtime, size))
    stats.level = "tags" if rows else "cold"
    if draft_above is not None and _draftable_bytes(todo) > draft_above:
        todo, stats.workers = _draft_all(root, todo, tags, skipped, workers)
        stats.level = "draft"
    # Rows are stored and decoded as workers return them, while the rest still parse.
    batch: list[tuple[str, int, int, str | None, bytes | None]] = []
    plan = _pool_plan(todo, workers)
    if todo:  # else the drafting processes, or none
        stats.workers = plan[1]
    for parsed in _parse_all(root, todo, references, plan, to_render):
        if parsed[3] != "huge":
            stats.parsed += 1
        _collect(parsed[0], parsed[3], parsed[4], tags, skipped)
        batch.append(parsed)
        if len(batch) >= _STORE_BATCH:
            cache.put_files(batch)
            batch = []
    cache.put_files(batch)
    return tags, skipped


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


def _draftable_bytes(todo: Sequence[tuple[str, int, int]]) -> int:
    return sum(size for rel, _, size in todo
               if size <= MAX_FILE_BYTES and language_for(rel) in DRAFT_LANGS)


def _draft_all(root: Path, todo: list[tuple[str, int, int]], tags: Tags,
               skipped: dict[str, int], workers: int | None
               ) -> tuple[list[tuple[str, int, int]], int]:
    """Draft tags of the draftable files into `tags` (in a pool when it pays, the tokenizer the
    map is then rendered with loading meanwhile); the files left to parse, and the processes
    that drafted."""
    rest: list[tuple[str, int, int]] = []
    drafted: list[tuple[str, int, int]] = []
    jobs: list[tuple[str, str, str]] = []
    for rel, mtime, size in todo:
        lang = language_for(rel)
        if lang not in DRAFT_LANGS or size > MAX_FILE_BYTES:
            rest.append((rel, mtime, size))
        else:
            drafted.append((rel, mtime, size))
            jobs.append((str(root), rel, lang))
    method, workers = _pool_plan(drafted, workers)
    if not method:
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


def _parse_one(job: tuple[str, str, int, int, str]
               ) -> tuple[str, int, int, str | None, bytes | None]:
    root, rel, mtime, size, references = job
    if size > MAX_FILE_BYTES:
        return rel, mtime, size, "huge", None
    try:
        src = _read_source(f"{root}/{rel}")
    except OSError:
        return rel, mtime, size, "unreadable", None
    reason = skip_reason(src, rel)
    if reason is not None:
        return rel, mtime, size, reason, None
    lang = language_for(rel)
    try:
        # why the ignore below: lang is one of the pack's names
        return rel, mtime, size, None, extract(src, lang, references).dumps()  # type: ignore[arg-type]  # why: above
    except Exception:  # a grammar crash on one odd file must not sink the map
        return rel, mtime, size, "parse_error", None


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_source(path: str) -> bytes:
    """The bytes of a regular file, in five system calls (`safe_files.read_regular_bytes` makes
    ten: on 100,000 tiny files the difference is seconds). O_NONBLOCK: a file swapped for a
    FIFO cannot block the open; anything but a regular file is refused before a read."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if (info.st_mode & 0o170000) != 0o100000:
            raise OSError(f"{path} is not a regular file")
        chunks = [os.read(fd, min(info.st_size, MAX_FILE_BYTES) + 1)]
        while chunks[-1] and sum(map(len, chunks)) <= MAX_FILE_BYTES:
            chunks.append(os.read(fd, 65536))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _cpus() -> int:
    """CPUs this process may run on (the affinity mask in a container, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _pool_plan(todo: Sequence[tuple[str, int, int]], workers: int | None) -> tuple[str, int]:
    """(start method, processes) for parsing `todo`; ("", 1) parses in-process. Only a process
    that runs no other thread forks a pool (`valarmind map`, the background refiner): forking
    beside threads can deadlock, and the other start methods run `python -c`, which puts the
    working directory, the project, first on the import path (a repository's
    `multiprocessing/` ran in the forkserver and its resource tracker)."""
    workers = min(workers or _cpus(), 8)
    work = sum(size + _FILE_COST_BYTES for _, _, size in todo if size <= MAX_FILE_BYTES)
    if threading.active_count() > 1 or work < _POOL_MIN_BYTES or workers < 2:
        return "", 1
    return "fork", workers


def _warm_queries(paths: Iterable[str]) -> None:
    """Compile the needed grammars and queries once, before forking: the workers inherit them
    instead of each importing tree-sitter and compiling its own."""
    for lang in sorted({lang for p in paths if (lang := language_for(p)) is not None}):
        try:
            queries(lang)
        except Exception:  # the worker meets the same error and reports the file as skipped
            continue


def _parse_all(root: Path, todo: Sequence[tuple[str, int, int]], references: str,
               plan: tuple[str, int], to_render: bool = False
               ) -> Iterator[tuple[str, int, int, str | None, bytes | None]]:
    jobs = [(str(root), rel, mtime, size, references) for rel, mtime, size in todo]
    method, workers = plan
    if not method:
        yield from map(_parse_one, jobs)
        return
    import multiprocessing

    ctx = multiprocessing.get_context(method)
    _warm_queries({rel for _, rel, _, _, _ in jobs})
    jobs.sort(key=lambda j: -j[3])  # big files first: better load balance
    tokenizer = threading.Thread(target=_load_budget_encodings, name="tokenizer", daemon=True)
    with ctx.Pool(workers) as pool:
        if to_render:  # started after the workers: a fork must not copy a running thread
            tokenizer.start()
        # the big files first, a few per message; thousands of tiny ones in bigger messages
        chunks = max(8, min(256, len(jobs) // (workers * 16)))
        yield from pool.imap_unordered(_parse_one, jobs, chunksize=chunks)
    if to_render:
        tokenizer.join()
