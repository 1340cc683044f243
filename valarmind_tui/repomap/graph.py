"""The definition/reference graph and a personalized PageRank over it (no networkx).

Nodes are files. For every name a file references and other files define, an edge goes from the
referencing file to each defining file (Aider's scheme): weight = sqrt(reference count) times
factors that favour distinctive names (long snake/camel case x10; `_private` x0.1; defined in
more than 5 files x0.1), names the person mentioned (x10) and references made from the chat
files (x50). A name defined but referenced nowhere gets a 0.1 self-edge so it can still be
ranked. Names defined in more than MAX_DEFINERS files say nothing about which file is meant and
would add definers x referencers edges; they are left out. A file's rank is then shared out
over its out-edges to (defining file, name) pairs, which ranks the definitions themselves.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

MAX_DEFINERS = 25
DAMPING = 0.85
_DISTINCT = re.compile(r"^(?=.{8,})([a-z0-9]+_[a-z0-9_]+|[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*)$")


@dataclass
class Graph:
    """Edges as parallel lists (compact, marshal-friendly): src file, dst file, name, weight."""

    files: list[str]
    names: list[str]
    src: list[int]
    dst: list[int]
    name_id: list[int]
    weight: list[float]

    def to_tuple(self) -> tuple:
        return (self.files, self.names, self.src, self.dst, self.name_id, self.weight)


def name_weight(name: str, definers: int) -> float:
    """The structural factor of a name (without mention and chat-file factors)."""
    mul = 1.0
    if _DISTINCT.match(name):
        mul *= 10
    if name.startswith("_"):
        mul *= 0.1
    if definers > 5:
        mul *= 0.1
    return mul


def build_graph(files: Sequence[str], defined: Sequence[Collection[str]],
                referenced: Sequence[dict[str, int]]) -> Graph:
    """Build the graph from each file's defined names and referenced name counts."""
    definers: dict[str, list[int]] = {}
    for index, names in enumerate(defined):
        for name in names:
            definers.setdefault(name, []).append(index)
    name_ids: dict[str, int] = {}
    src: list[int] = []
    dst: list[int] = []
    nid: list[int] = []
    weight: list[float] = []
    referenced_anywhere: set[str] = set()
    for index, refs in enumerate(referenced):
        for name, count in refs.items():
            owners = definers.get(name)
            if not owners or len(owners) > MAX_DEFINERS:
                continue
            referenced_anywhere.add(name)
            w = name_weight(name, len(owners)) * math.sqrt(count)
            ident = name_ids.setdefault(name, len(name_ids))
            for owner in owners:
                src.append(index)
                dst.append(owner)
                nid.append(ident)
                weight.append(w)
    for name, owners in definers.items():
        if name in referenced_anywhere or len(owners) > MAX_DEFINERS:
            continue
        ident = name_ids.setdefault(name, len(name_ids))
        for owner in owners:
            src.append(owner)
            dst.append(owner)
            nid.append(ident)
            weight.append(0.1)
    names = [""] * len(name_ids)
    for name, ident in name_ids.items():
        names[ident] = name
    return Graph(list(files), names, src, dst, nid, weight)


def edge_weights(graph: Graph, chat: set[int], mentioned: set[str]) -> list[float]:
    """Edge weights with the mention (x10) and chat-file (x50) factors applied."""
    if not chat and not mentioned:
        return graph.weight
    boosted = {i for i, name in enumerate(graph.names) if name in mentioned}
    return [
        w * (10 if n in boosted else 1) * (50 if s in chat else 1)
        for w, s, n in zip(graph.weight, graph.src, graph.name_id, strict=True)
    ]


def pagerank(n: int, src: Sequence[int], dst: Sequence[int], weight: Sequence[float],
             personalization: dict[int, float] | None = None, *, damping: float = DAMPING,
             tol: float = 1e-6, max_iter: int = 100) -> list[float]:
    """Weighted personalized PageRank by power iteration over a sparse dict-of-dicts.

    Dangling nodes give their rank back through the personalization vector (as networkx does).
    Converges when the L1 change is below n * tol.
    """
    if n == 0:
        return []
    out: list[dict[int, float]] = [{} for _ in range(n)]
    for s, d, w in zip(src, dst, weight, strict=True):
        row = out[s]
        row[d] = row.get(d, 0.0) + w
    p = _personal_vector(n, personalization)
    rows = [(s, list(row.items()), sum(row.values())) for s, row in enumerate(out) if row]
    dangling = [i for i in range(n) if not out[i]]
    rank = list(p)
    for _ in range(max_iter):
        leak = damping * sum(rank[i] for i in dangling)
        new = [(1.0 - damping + leak) * pi for pi in p]
        for s, targets, total in rows:
            share = damping * rank[s] / total
            for d, w in targets:
                new[d] += share * w
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


def rank_definitions(graph: Graph, rank: Sequence[float],
                     weights: Sequence[float]) -> list[tuple[float, int, str]]:
    """(rank, defining file, name), best first: each file's rank shared over its out-edges."""
    out_total = [0.0] * len(graph.files)
    for s, w in zip(graph.src, weights, strict=True):
        out_total[s] += w
    acc: dict[tuple[int, int], float] = {}
    for s, d, n, w in zip(graph.src, graph.dst, graph.name_id, weights, strict=True):
        key = (d, n)
        acc[key] = acc.get(key, 0.0) + rank[s] * w / out_total[s]
    ranked = [(r, d, graph.names[n]) for (d, n), r in acc.items()]
    ranked.sort(key=lambda t: (-t[0], graph.files[t[1]], t[2]))
    return ranked
