"""The file graph of definitions, references and imports, and a PageRank over it (no networkx).

Nodes are files. For every name a file references and other files define, an edge goes from the
referencing file to each defining file (Aider's scheme): weight = sqrt(reference count) times
factors that favour distinctive names (long snake/camel case x10; `_private` x0.1; defined in
more than 5 files x0.1; a builtin or a common method name such as `append`, `join`, `max`
x0.05), names the person mentioned (x10) and references made from the chat files (x50).

Imports sharpen this: a name the file imports from a project module (`from .core import
Symbol`, followed through re-exports), or defined in a module it imports, gets an edge to that
module alone, with no many-definers or common-name penalty. A module imported but none of whose
names the file references gets a file edge of IMPORT_WEIGHT, whose rank goes to the module's
best definition (or to the bare file when it defines nothing).

A name defined but referenced nowhere gets a 0.1 self-edge so it can still be ranked. Names
defined in more than MAX_DEFINERS files say nothing about which file is meant and would add
definers x referencers edges; unless an import resolves them, they are left out. A file's rank
is then shared out over its out-edges to (defining file, name) pairs, which ranks the
definitions themselves.

Unresolved edges are kept factored: one reference (file, name, weight) stands for an edge to
every definer of the name, all with the same weight, so a name's share of rank is computed once
and given to each of its definers (a third of the work on sympy, and a smaller cache).
"""

from __future__ import annotations

import builtins
import heapq
import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from operator import mul, sub

MAX_DEFINERS = 25
DAMPING = 0.3
"""Low, so a file's rank is mostly what its own importers and referrers give it: at 0.85 rank
drains down the dependency chain into leaf modules (exception classes, small helpers), and the
map named 10% of sympy's 20 most-imported modules; at 0.3, 70% (benchmarks/repomap_quality)."""
SELF_EDGE_WEIGHT = 0.1
IMPORT_WEIGHT = 10.0
FILE_SPREAD = 0.3
"""Each further definition of the same file counts this much less, so the map names more
files instead of listing one file's every method."""
FILE_EDGE = -1
"""`dir_name` of an import edge that carries no name."""
_DISTINCT = re.compile(r"^(?=.{8,})([a-z0-9]+_[a-z0-9_]+|[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*)$")
COMMON_NAMES = frozenset(
    name for kind in (builtins, object, list, dict, set, str, bytes, int, float, tuple)
    for name in dir(kind) if not name.startswith("_")
) | frozenset({
    "push", "map", "filter", "reduce", "forEach", "toString", "then", "catch", "slice",
    "indexOf", "length", "size", "get", "set", "has", "delete", "keys", "values", "entries",
    "write", "read", "close", "open", "run", "main", "start", "stop", "init", "apply", "call",
    "name", "value", "data", "args", "kwargs", "self", "cls", "test", "setUp", "tearDown",
})
"""Names of builtins and of common methods: a reference to one says little about which
project file is meant."""


@dataclass
class Graph:
    """Parallel lists (compact, marshal-friendly).

    `owners[n]`: files defining name n. References: `ref_src[i]` references `ref_name[i]` with
    structural weight `ref_weight[i]` (an edge to every owner). Direct edges (resolved through
    imports): `dir_src[k]` -> `dir_dst[k]` for name `dir_name[k]` (FILE_EDGE: the module
    itself). Self-edges: `self_file[j]` defines `self_name[j]`, which nothing references.
    """

    files: list[str]
    names: list[str]
    owners: list[list[int]]
    ref_src: list[int]
    ref_name: list[int]
    ref_weight: list[float]
    self_file: list[int]
    self_name: list[int]
    dir_src: list[int]
    dir_dst: list[int]
    dir_name: list[int]
    dir_weight: list[float]

    def to_tuple(self) -> tuple:
        return (self.files, self.names, self.owners, self.ref_src, self.ref_name,
                self.ref_weight, self.self_file, self.self_name, self.dir_src, self.dir_dst,
                self.dir_name, self.dir_weight)

    def out_totals(self, weights: Weights) -> list[float]:
        """Each file's total out-edge weight."""
        ref_w, self_w, dir_w = weights
        owners = self.owners
        total = [0.0] * len(self.files)
        for s, n, w in zip(self.ref_src, self.ref_name, ref_w, strict=True):
            total[s] += w * len(owners[n])
        for f, w in zip(self.self_file, self_w, strict=True):
            total[f] += w
        for s, w in zip(self.dir_src, dir_w, strict=True):
            total[s] += w
        return total


Weights = tuple[list[float], list[float], list[float]]
"""(reference, self-edge, direct-edge) weights."""


def name_weight(name: str, definers: int, resolved: bool = False) -> float:
    """The structural factor of a name (without mention and chat-file factors); a `resolved`
    name (found through an import) pays no many-definers or common-name penalty."""
    factor = 1.0
    if _DISTINCT.match(name):
        factor *= 10
    if name.startswith("_"):
        factor *= 0.1
    if not resolved and definers > 5:
        factor *= 0.1
    if not resolved and name in COMMON_NAMES:
        factor *= 0.05
    return factor


def _through(module: int, name: str, defined: Sequence[Collection[str]],
             reexports: Sequence[Mapping[str, int]]) -> int | None:
    """The file that defines `name` as imported from `module`, through up to 3 re-exports."""
    for _ in range(4):
        if name in defined[module]:
            return module
        nxt = reexports[module].get(name)
        if nxt is None or nxt == module:
            return None
        module = nxt
    return None


def build_graph(files: Sequence[str], defined: Sequence[Collection[str]],
                referenced: Sequence[dict[str, int]],
                imported: Sequence[Mapping[int, Sequence[str]]] | None = None) -> Graph:
    """Build the graph from each file's defined names, referenced name counts and imports
    (file -> the names imported from it by name; empty for `import module`)."""
    imported = imported or [{} for _ in files]
    definers: dict[str, list[int]] = {}
    for index, names in enumerate(defined):
        for name in names:
            definers.setdefault(name, []).append(index)
    reexports = [{n: f for f, names in imp.items() for n in names} for imp in imported]
    name_ids: dict[str, int] = {}
    owners: list[list[int]] = []
    factor: list[float] = []
    ref_src: list[int] = []
    ref_name: list[int] = []
    counts: list[int] = []
    dir_src: list[int] = []
    dir_dst: list[int] = []
    dir_name: list[int] = []
    dir_weight: list[float] = []
    sqrt = math.sqrt

    def name_id(name: str, found: list[int]) -> int:
        ident = name_ids.get(name)
        if ident is None:
            ident = name_ids[name] = len(owners)
            owners.append(found)
            factor.append(name_weight(name, len(found)))
        return ident

    for index, refs in enumerate(referenced):
        imp = imported[index]
        named: dict[str, int] = {}
        for module, names in imp.items():
            for name in names:
                target = _through(module, name, defined, reexports)
                if target is not None and target != index:
                    named[name] = target
        modules = set(imp) | set(named.values())
        modules.discard(index)
        used: set[int] = set()
        for name, count in refs.items():
            found = definers.get(name)
            if not found:
                continue
            target = named.get(name)
            hits = [target] if target is not None else [d for d in found if d in modules]
            if hits:
                ident = name_id(name, found)
                weight = name_weight(name, 1, resolved=target is not None) * sqrt(count)
                for d in hits:
                    dir_src.append(index)
                    dir_dst.append(d)
                    dir_name.append(ident)
                    dir_weight.append(weight)
                used.update(hits)
                continue
            if len(found) > MAX_DEFINERS:
                continue
            ref_src.append(index)
            ref_name.append(name_id(name, found))
            counts.append(count)
        for module in sorted(modules - used):
            dir_src.append(index)
            dir_dst.append(module)
            dir_name.append(FILE_EDGE)
            dir_weight.append(IMPORT_WEIGHT)
    ref_weight = [factor[n] * sqrt(c) for n, c in zip(ref_name, counts, strict=True)]
    self_file: list[int] = []
    self_name: list[int] = []
    for name, found in definers.items():
        if name in name_ids or len(found) > MAX_DEFINERS:
            continue
        ident = name_ids[name] = len(owners)
        owners.append(found)
        self_file += found
        self_name += [ident] * len(found)
    names = list(name_ids)
    return Graph(list(files), names, owners, ref_src, ref_name, ref_weight, self_file, self_name,
                 dir_src, dir_dst, dir_name, dir_weight)


def edge_weights(graph: Graph, chat: set[int], mentioned: set[str]) -> Weights:
    """(reference, self-edge, direct-edge) weights with the mention (x10) and chat-file (x50)
    factors applied."""
    selfw = [SELF_EDGE_WEIGHT] * len(graph.self_file)
    if not chat and not mentioned:
        return graph.ref_weight, selfw, graph.dir_weight
    boosted = {i for i, name in enumerate(graph.names) if name in mentioned}

    def boost(w: float, s: int, n: int) -> float:
        return w * (10 if n in boosted else 1) * (50 if s in chat else 1)

    refs = [boost(w, s, n) for w, s, n in
            zip(graph.ref_weight, graph.ref_src, graph.ref_name, strict=True)]
    direct = [boost(w, s, n) for w, s, n in
              zip(graph.dir_weight, graph.dir_src, graph.dir_name, strict=True)]
    return refs, [boost(w, f, n) for w, f, n in
                  zip(selfw, graph.self_file, graph.self_name, strict=True)], direct


def pagerank(n: int, src: Sequence[int], dst: Sequence[int], weight: Sequence[float],
             personalization: dict[int, float] | None = None, *, damping: float = DAMPING,
             tol: float = 1e-6, max_iter: int = 100) -> list[float]:
    """Weighted personalized PageRank by power iteration over an edge list.

    Dangling nodes give their rank back through the personalization vector (as networkx does).
    Converges when the L1 change is below n * tol.
    """
    total = [0.0] * n
    into: list[dict[int, float]] = [{} for _ in range(n)]
    for s, d, w in zip(src, dst, weight, strict=True):
        total[s] += w
        row = into[d]
        row[s] = row.get(s, 0.0) + w
    return _power_iteration(into, total, personalization, damping, tol, max_iter)


def _power_iteration(into: list[dict[int, float]], total: list[float],
                     personalization: dict[int, float] | None, damping: float, tol: float,
                     max_iter: int) -> list[float]:
    """`into[d]`: summed weight of each edge s -> d; `total[s]`: s's out-weight."""
    n = len(total)
    if n == 0:
        return []
    factor = [damping / t if t else 0.0 for t in total]
    incoming = [(list(row), [w * factor[s] for s, w in row.items()]) for row in into]
    p = _personal_vector(n, personalization)
    dangling = [i for i in range(n) if not total[i]]
    rank = list(p)
    for _ in range(max_iter):
        base = 1.0 - damping + damping * sum(map(rank.__getitem__, dangling))
        get = rank.__getitem__
        new = [base * pi + sum(map(mul, ws, map(get, ss)))
               for pi, (ss, ws) in zip(p, incoming, strict=True)]
        err = sum(map(abs, map(sub, new, rank)))
        rank = new
        if err < n * tol:
            break
    return rank


def _personal_vector(n: int, personalization: dict[int, float] | None) -> list[float]:
    if not personalization:
        return [1.0 / n] * n
    total = sum(personalization.values())
    p = [0.0] * n
    for i, v in personalization.items():
        p[i] = v / total
    return p


def rank_file_graph(graph: Graph, weights: Weights,
                    personalization: dict[int, float] | None) -> list[float]:
    """PageRank of the files under the given weights."""
    into: list[dict[int, float]] = [{} for _ in graph.files]
    owners = graph.owners
    for s, n, w in zip(graph.ref_src, graph.ref_name, weights[0], strict=True):
        for d in owners[n]:
            row = into[d]
            row[s] = row.get(s, 0.0) + w
    for f, w in zip(graph.self_file, weights[1], strict=True):
        row = into[f]
        row[f] = row.get(f, 0.0) + w
    for s, d, w in zip(graph.dir_src, graph.dir_dst, weights[2], strict=True):
        row = into[d]
        row[s] = row.get(s, 0.0) + w
    return _power_iteration(into, graph.out_totals(weights), personalization, DAMPING, 1e-6,
                            100)


def rank_definitions(graph: Graph, rank: Sequence[float], weights: Weights, *,
                     limit: int | None = None, exclude: Collection[int] = ()
                     ) -> list[tuple[float, int, str]]:
    """(rank, defining file, name), best first: each file's rank shared over its out-edges.
    The rank an import edge brings a module goes to its best definition; a module that defines
    nothing ranked appears with the name "" (the bare file).

    At most `limit` of them (the same prefix a full sort gives), none from `exclude` files.
    """
    ref_w, self_w, dir_w = weights
    owners = graph.owners
    out_total = graph.out_totals(weights)
    share = [r / t if t else 0.0 for r, t in zip(rank, out_total, strict=True)]
    per_name = [0.0] * len(graph.names)
    for s, n, w in zip(graph.ref_src, graph.ref_name, ref_w, strict=True):
        per_name[n] += share[s] * w
    acc: dict[tuple[int, int], float] = {}
    for n in dict.fromkeys(graph.ref_name):
        for d in owners[n]:
            acc[(d, n)] = per_name[n]
    for f, n, w in zip(graph.self_file, graph.self_name, self_w, strict=True):
        acc[(f, n)] = acc.get((f, n), 0.0) + share[f] * w
    module_flow: dict[int, float] = {}
    for s, d, n, w in zip(graph.dir_src, graph.dir_dst, graph.dir_name, dir_w, strict=True):
        if n == FILE_EDGE:
            module_flow[d] = module_flow.get(d, 0.0) + share[s] * w
        else:
            acc[(d, n)] = acc.get((d, n), 0.0) + share[s] * w
    best: dict[int, tuple[float, int]] = {}
    for (d, n), r in acc.items():
        if d in module_flow and (d not in best or (r, -n) > (best[d][0], -best[d][1])):
            best[d] = (r, n)
    bare: list[tuple[float, int, str]] = []
    for d, flow in module_flow.items():
        if d in best:
            acc[(d, best[d][1])] += flow
        elif d not in exclude:
            bare.append((flow, d, ""))
    names, files = graph.names, graph.files
    ranked = [(r, d, names[n]) for (d, n), r in acc.items() if d not in exclude] + bare
    if limit is not None and len(ranked) > limit:
        # Everything tied with the limit-th rank stays, so the sorted prefix is unchanged.
        floor = heapq.nlargest(limit, [t[0] for t in ranked])[-1] if limit else math.inf
        ranked = [t for t in ranked if t[0] >= floor]
    ranked.sort(key=lambda t: (-t[0], files[t[1]], t[2]))
    return ranked[:limit]


def spread(ranked: Sequence[tuple[float, int, str]], files: Sequence[str],
           factor: float = FILE_SPREAD) -> list[tuple[float, int, str]]:
    """`ranked` re-scored so a file's k-th definition counts factor**k: best first."""
    seen: dict[int, int] = {}
    out = []
    for r, f, n in ranked:
        k = seen.get(f, 0)
        seen[f] = k + 1
        out.append((r * factor ** k, f, n))
    out.sort(key=lambda t: (-t[0], files[t[1]], t[2]))
    return out
