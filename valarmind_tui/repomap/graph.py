"""The definition/reference graph and a personalized PageRank over it (no networkx).

Nodes are files. For every name a file references and other files define, an edge goes from the
referencing file to each defining file (Aider's scheme): weight = sqrt(reference count) times
factors that favour distinctive names (long snake/camel case x10; `_private` x0.1; defined in
more than 5 files x0.1), names the person mentioned (x10) and references made from the chat
files (x50). A name defined but referenced nowhere gets a 0.1 self-edge so it can still be
ranked. Names defined in more than MAX_DEFINERS files say nothing about which file is meant and
would add definers x referencers edges; they are left out. A file's rank is then shared out
over its out-edges to (defining file, name) pairs, which ranks the definitions themselves.

The edges are kept factored: one reference (file, name, weight) stands for an edge to every
definer of the name, all with the same weight, so a name's share of rank is computed once and
given to each of its definers (a third of the work on sympy, and a smaller cache).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from operator import mul

MAX_DEFINERS = 25
DAMPING = 0.85
SELF_EDGE_WEIGHT = 0.1
_DISTINCT = re.compile(r"^(?=.{8,})([a-z0-9]+_[a-z0-9_]+|[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*)$")


@dataclass
class Graph:
    """Parallel lists (compact, marshal-friendly).

    `owners[n]`: files defining name n. References: `ref_src[i]` references `ref_name[i]` with
    structural weight `ref_weight[i]` (an edge to every owner). Self-edges: `self_file[j]`
    defines `self_name[j]`, which nothing references.
    """

    files: list[str]
    names: list[str]
    owners: list[list[int]]
    ref_src: list[int]
    ref_name: list[int]
    ref_weight: list[float]
    self_file: list[int]
    self_name: list[int]

    def to_tuple(self) -> tuple:
        return (self.files, self.names, self.owners, self.ref_src, self.ref_name,
                self.ref_weight, self.self_file, self.self_name)

    def edges(self, weights: Sequence[float], self_weights: Sequence[float]
              ) -> tuple[list[int], list[int], list[float]]:
        """The graph expanded to (src, dst, weight) edges, parallel edges summed."""
        out: list[dict[int, float]] = [{} for _ in self.files]
        owners = self.owners
        for s, n, w in zip(self.ref_src, self.ref_name, weights, strict=True):
            row = out[s]
            for d in owners[n]:
                row[d] = row.get(d, 0.0) + w
        for f, w in zip(self.self_file, self_weights, strict=True):
            row = out[f]
            row[f] = row.get(f, 0.0) + w
        src: list[int] = []
        dst: list[int] = []
        weight: list[float] = []
        for s, row in enumerate(out):
            src += [s] * len(row)
            dst += row.keys()
            weight += row.values()
        return src, dst, weight


def name_weight(name: str, definers: int) -> float:
    """The structural factor of a name (without mention and chat-file factors)."""
    factor = 1.0
    if _DISTINCT.match(name):
        factor *= 10
    if name.startswith("_"):
        factor *= 0.1
    if definers > 5:
        factor *= 0.1
    return factor


def build_graph(files: Sequence[str], defined: Sequence[Collection[str]],
                referenced: Sequence[dict[str, int]]) -> Graph:
    """Build the graph from each file's defined names and referenced name counts."""
    definers: dict[str, list[int]] = {}
    for index, names in enumerate(defined):
        for name in names:
            definers.setdefault(name, []).append(index)
    name_ids: dict[str, int] = {}
    owners: list[list[int]] = []
    factor: list[float] = []
    ref_src: list[int] = []
    ref_name: list[int] = []
    counts: list[int] = []
    sqrt = math.sqrt
    for index, refs in enumerate(referenced):
        for name, count in refs.items():
            ident = name_ids.get(name)
            if ident is None:
                found = definers.get(name)
                if not found or len(found) > MAX_DEFINERS:
                    continue
                ident = name_ids[name] = len(owners)
                owners.append(found)
                factor.append(name_weight(name, len(found)))
            ref_src.append(index)
            ref_name.append(ident)
            counts.append(count)
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
    return Graph(list(files), names, owners, ref_src, ref_name, ref_weight, self_file, self_name)


def edge_weights(graph: Graph, chat: set[int], mentioned: set[str]
                 ) -> tuple[list[float], list[float]]:
    """(reference weights, self-edge weights) with the mention (x10) and chat-file (x50)
    factors applied."""
    selfw = [SELF_EDGE_WEIGHT] * len(graph.self_file)
    if not chat and not mentioned:
        return graph.ref_weight, selfw
    boosted = {i for i, name in enumerate(graph.names) if name in mentioned}

    def boost(w: float, s: int, n: int) -> float:
        return w * (10 if n in boosted else 1) * (50 if s in chat else 1)

    refs = [boost(w, s, n) for w, s, n in
            zip(graph.ref_weight, graph.ref_src, graph.ref_name, strict=True)]
    return refs, [boost(w, f, n) for w, f, n in
                  zip(selfw, graph.self_file, graph.self_name, strict=True)]


def pagerank(n: int, src: Sequence[int], dst: Sequence[int], weight: Sequence[float],
             personalization: dict[int, float] | None = None, *, damping: float = DAMPING,
             tol: float = 1e-6, max_iter: int = 100) -> list[float]:
    """Weighted personalized PageRank by power iteration over incoming-edge lists.

    Dangling nodes give their rank back through the personalization vector (as networkx does).
    Converges when the L1 change is below n * tol.
    """
    if n == 0:
        return []
    total = [0.0] * n
    for s, w in zip(src, weight, strict=True):
        total[s] += w
    into_src: list[list[int]] = [[] for _ in range(n)]
    into_w: list[list[float]] = [[] for _ in range(n)]
    for s, d, w in zip(src, dst, weight, strict=True):
        into_src[d].append(s)
        into_w[d].append(damping * w / total[s])
    incoming = [(ss, ws) for ss, ws in zip(into_src, into_w, strict=True)]
    p = _personal_vector(n, personalization)
    dangling = [i for i in range(n) if not total[i]]
    rank = list(p)
    for _ in range(max_iter):
        base = 1.0 - damping + damping * sum(rank[i] for i in dangling)
        get = rank.__getitem__
        new = [base * pi + sum(map(mul, ws, map(get, ss)))
               for pi, (ss, ws) in zip(p, incoming, strict=True)]
        err = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
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


def rank_file_graph(graph: Graph, weights: tuple[list[float], list[float]],
                    personalization: dict[int, float] | None) -> list[float]:
    """PageRank of the files under the given (reference, self-edge) weights."""
    return pagerank(len(graph.files), *graph.edges(*weights), personalization)


def rank_definitions(graph: Graph, rank: Sequence[float],
                     weights: tuple[list[float], list[float]]) -> list[tuple[float, int, str]]:
    """(rank, defining file, name), best first: each file's rank shared over its out-edges."""
    ref_w, self_w = weights
    owners = graph.owners
    out_total = [0.0] * len(graph.files)
    for s, n, w in zip(graph.ref_src, graph.ref_name, ref_w, strict=True):
        out_total[s] += w * len(owners[n])
    for f, w in zip(graph.self_file, self_w, strict=True):
        out_total[f] += w
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
    names, files = graph.names, graph.files
    ranked = [(r, d, names[n]) for (d, n), r in acc.items()]
    ranked.sort(key=lambda t: (-t[0], files[t[1]], t[2]))
    return ranked
