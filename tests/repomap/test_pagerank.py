"""The map's ranking agrees with a straightforward, independently written PageRank."""

from __future__ import annotations

import marshal
import math
from pathlib import Path

from valarmind_tui.repomap import RepoMap
from valarmind_tui.repomap.cache import TagCache
from valarmind_tui.repomap.graph import COMMON_NAMES, DAMPING, FILE_SPREAD, pagerank

GOLDEN = Path(__file__).parent / "golden"


def _reference_pagerank(n: int, edges: list[tuple[int, int, float]], personal: list[float],
                        d: float = DAMPING) -> list[float]:
    """Dense textbook power iteration: r = (1-d) p + d (M r + dangling p)."""
    matrix = [[0.0] * n for _ in range(n)]
    for s, t, w in edges:
        matrix[s][t] += w
    out = [sum(row) for row in matrix]
    r = personal[:]
    for _ in range(500):
        dangling = sum(r[i] for i in range(n) if out[i] == 0)
        r = [(1 - d) * personal[j] + d * dangling * personal[j]
             + d * sum(r[i] * matrix[i][j] / out[i] for i in range(n) if out[i])
             for j in range(n)]
    return r


def _weight(name: str, definers: int, count: int, chat_ref: bool, resolved: bool) -> float:
    distinct = len(name) >= 8 and ("_" in name.strip("_") or
                                   (name[0].isalpha() and any(c.isupper() for c in name[1:])))
    mul = (10 if distinct and not name.startswith("_") else 1)
    mul *= 0.1 if name.startswith("_") else 1
    mul *= 0.1 if definers > 5 and not resolved else 1
    mul *= 0.05 if name in COMMON_NAMES and not resolved else 1
    mul *= 50 if chat_ref else 1
    return mul * math.sqrt(count)


def _module_file(files: list[str], spec: str) -> str | None:
    """This project has no __init__.py: `shop.models` is shop/models.py."""
    path = spec.replace(".", "/") + ".py"
    return path if path in files else None


def test_top_definitions_agree_with_reference_pagerank(tmp_path: Path) -> None:
    """The documented scheme, written out densely: names imported by name go to their module
    only (unpenalised); other names to every definer; an imported module none of whose names
    is used gets a file edge whose rank goes to its best definition; then each file's k-th
    definition counts FILE_SPREAD**k."""
    project = GOLDEN / "python"
    cache_dir = tmp_path / "cache"
    repo_map = RepoMap(project, cache_dir=cache_dir)
    chat = ["shop/cli.py"]
    result = repo_map.build(token_budget=2048, chat_files=chat)
    repo_map.close()

    cache = TagCache(project.resolve(), cache_dir)
    rows = {p: marshal.loads(data) for p, (_, _, _, data) in cache.file_rows().items()}
    cache.close()
    files = sorted(rows)
    definers: dict[str, set[int]] = {}
    for i, f in enumerate(files):
        for d in rows[f][0]:
            definers.setdefault(d[0], set()).add(i)
    edges: list[tuple[int, int, str, float]] = []  # name "" is a file edge
    referenced: set[str] = set()
    for i, f in enumerate(files):
        named: dict[str, int] = {}
        modules: set[int] = set()
        for spec, names in rows[f][2]:
            target = _module_file(files, spec)
            if target is None:
                continue
            modules.add(files.index(target))
            for name in names:
                if name in definers and files.index(target) in definers[name]:
                    named[name] = files.index(target)
        used: set[int] = set()
        for name, count in rows[f][1].items():
            if name not in definers:
                continue
            referenced.add(name)
            hits = [named[name]] if name in named else sorted(definers[name] & modules)
            owners = hits or sorted(definers[name])
            for owner in owners:
                edges.append((i, owner, name, _weight(name, 1 if hits else len(definers[name]),
                                                       count, f in chat, name in named)))
            used.update(hits)
        for module in sorted(modules - used - {i}):
            edges.append((i, module, "", 10.0 * (50 if f in chat else 1)))
    for name, owners in definers.items():
        if name not in referenced:
            edges += [(o, o, name, 0.1) for o in owners]
    n = len(files)
    personal = [1.0 if f in chat else 0.0 for f in files]
    personal = [p / sum(personal) for p in personal]
    ranks = _reference_pagerank(n, [(s, t, w) for s, t, _, w in edges], personal)
    out = [0.0] * n
    for s, _, _, w in edges:
        out[s] += w
    scores: dict[tuple[str, str], float] = {}
    for s, t, name, w in edges:
        scores[(files[t], name)] = scores.get((files[t], name), 0.0) + ranks[s] * w / out[s]
    for file in {f for f, name in scores if name == ""}:
        flow = scores.pop((file, ""))
        best = max((k for k in scores if k[0] == file), key=lambda k: scores[k])
        scores[best] += flow
    order = sorted(((f, nm) for f, nm in scores if f not in chat), key=lambda k: (-scores[k], k))
    seen: dict[str, int] = {}
    spread: dict[tuple[str, str], float] = {}
    for key in order:
        spread[key] = scores[key] * FILE_SPREAD ** seen.get(key[0], 0)
        seen[key[0]] = seen.get(key[0], 0) + 1
    expected = sorted(spread, key=lambda k: (-spread[k], k))
    got = [(r["file"], r["name"]) for r in result.ranked]
    assert got[:8] == expected[:8]
    for entry in result.ranked[:8]:
        assert math.isclose(entry["rank"], spread[(entry["file"], entry["name"])], rel_tol=1e-4)


def test_sparse_pagerank_matches_dense_on_a_cycle_with_dangling_node() -> None:
    edges = [(0, 1, 1.0), (1, 2, 2.0), (2, 0, 1.0), (2, 1, 0.5), (3, 0, 1.0)]
    personal = [0.25] * 4 + [0.0]
    personal = [p / sum(personal) for p in personal]
    expected = _reference_pagerank(5, edges, personal)
    got = pagerank(5, *zip(*edges, strict=True), {i: p for i, p in enumerate(personal) if p})
    assert all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(got, expected, strict=True))
    assert math.isclose(sum(got), 1.0, abs_tol=1e-6)
