"""The files /init shows, in the repo map's order: the TREE of VALARMIND.md and its Project Core
come from the PageRank of the definition/reference graph, not from alphabetical order, and the
folders that hold the best-ranked files are never collapsed. Build output and packaging leftovers
(egg-info, dist, build, caches) are not the project and are left out.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from pathlib import Path, PurePosixPath
from typing import Any

log = logging.getLogger(__name__)

JUNK_DIRS = frozenset({
    "build", "dist", "__pycache__", ".eggs", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", "htmlcov", "node_modules", ".venv", "venv", "target",
    ".gradle", ".next", "coverage", "obj",
})
_NOT_CORE = frozenset({"setup.py", "noxfile.py", "conftest.py", "fabfile.py", "Rakefile",
                       "build.rs"})
_ENTRY = re.compile(r"(^|/)(main|app|index|server|cli|__main__|__init__|lib|mod|Program)\.\w+$")


def is_junk(path: str) -> bool:
    """Packaging and build leftovers: `src/x.egg-info/...`, `dist/`, caches."""
    *parts, name = path.split("/")  # string operations: /init asks this of every file
    return any(p in JUNK_DIRS or p.endswith((".egg-info", ".dist-info")) for p in parts) or (
        name.endswith(_COMPILED) and name not in _COMPILED)


_COMPILED = (".pyc", ".pyo", ".class")


_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/")
_TEST_NAME = re.compile(r"^test_|[._](test|spec)\.\w+$|Tests?\.\w+$")


def is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]  # string operations: /init asks this of every file
    return _TEST_DIR.search(path) is not None or _TEST_NAME.search(name) is not None


NOT_SHIPPED_DIRS = frozenset({
    "tests", "test", "testing", "__tests__", "spec", "specs", "fixtures", "fixture",
    "testdata", "test_data", "test-data", "snapshots", "__snapshots__", "examples", "example",
    "samples", "sample", "demo", "demos", "vendor", "vendored", "third_party", "third-party",
    "thirdparty", "3rdparty", "external", "extern", "generated", "gen", "benches",
    "benchmarks", "bench", "docs", "doc", "e2e", "playground", "bindings", "scripts",
    "contrib",
})
_GENERATED = re.compile(r"(\.min\.js|_pb2(_grpc)?\.pyi?|\.pb\.go|\.pb\.cc|\.pb\.h|"
                        r"\.generated\.\w+|\.g\.dart|_generated\.\w+|\.d\.ts)$")


def is_shipped(path: str) -> bool:
    """Code the project ships: not its tests, fixtures, examples, benchmarks, docs, vendored
    or generated files (a Rust linter's 3,000 Python test fixtures do not make it Python)."""
    parts = path.lower().split("/")
    return not (any(p in NOT_SHIPPED_DIRS for p in parts[:-1]) or is_test(path)
                or _GENERATED.search(parts[-1]) is not None)


def rank_files(root: Path, files: list[str]) -> list[str]:
    """`files` best first: the repo map's ranking, then entry points, then shallow paths."""
    scores: dict[str, float] = defaultdict(float)
    try:
        from valarmind_tui.repomap.refine import build_map

        # the map of the shipped code (a 30,000-file tree's 27,000 fixtures are not parsed); a
        # big cold tree is ranked from draft tags (sympy: /init 10.3 s -> 7.0 s) while the
        # refiner parses it exactly in the background
        result, _ = build_map(root, token_budget=4096, only=is_shipped)
        for item in result.ranked:
            scores[item["file"]] += float(item["rank"])
        for position, path in enumerate(result.files):
            scores[path] += 1e-9 * (len(result.files) - position)
    except Exception as exc:  # a broken grammar or cache must not stop /init
        log.warning("repo map unavailable for /init: %s", exc)
    known = set(files)
    return sorted(known, key=lambda f: (-scores.get(f, 0.0), not _ENTRY.search(f),
                                        f.count("/"), f))


def core_files(ranked: list[str], code: set[str], limit: int = 8) -> list[str]:
    """The best-ranked shipped source files (no tests, examples, fixtures or build scripts)."""
    return [f for f in ranked if f in code and is_shipped(f)
            and PurePosixPath(f).name not in _NOT_CORE][:limit]


def render_tree(files: list[str], max_depth: int = 3, max_entries: int = 60,
                ranked: list[str] | None = None, leaves_per_dir: int = 8) -> str:
    """A directory tree: folders and files in rank order (alphabetical without a ranking), the
    folders of the top-ranked files always opened, counts for what is cut."""
    order = {f: i for i, f in enumerate(ranked or sorted(files))}
    keep_open = {str(PurePosixPath(f).parent) for f in (ranked or [])[:12]}
    tree: dict[str, Any] = {}
    for f in files:
        node = tree
        for part in f.split("/"):
            node = node.setdefault(part, {})
    lines = [".", *_lines(tree, "", "", 1, max_depth, order, keep_open, leaves_per_dir)]
    if len(lines) > max_entries:
        lines = lines[:max_entries] + ["… (cut here)"]
    return "\n".join(lines)


def _best(node: dict[str, Any], path: str, order: dict[str, int]) -> int:
    if not node:
        return order.get(path, len(order))
    return min(_best(child, f"{path}/{name}" if path else name, order)
               for name, child in node.items())


def _lines(node: dict[str, Any], prefix: str, path: str, depth: int, max_depth: int,
           order: dict[str, int], keep_open: set[str], leaves_per_dir: int) -> list[str]:
    def full(name: str) -> str:
        return f"{path}/{name}" if path else name

    dirs = sorted((k for k, v in node.items() if v),
                  key=lambda k: (_best(node[k], full(k), order), k))
    leaves = sorted((k for k, v in node.items() if not v),
                    key=lambda k: (order.get(full(k), len(order)), k))
    out: list[str] = []
    for d in dirs:
        opened = any(o == full(d) or o.startswith(full(d) + "/") for o in keep_open)
        if depth >= max_depth and not opened:
            out.append(f"{prefix}{d}/ ({_count(node[d])} files)")
        else:
            out.append(f"{prefix}{d}/")
            out.extend(_lines(node[d], prefix + "  ", full(d), depth + 1, max_depth, order,
                              keep_open, leaves_per_dir))
    # the root and the folders of the best-ranked files show more of their files
    limit = max(leaves_per_dir, 20) if depth == 1 or path in keep_open else leaves_per_dir
    out.extend(prefix + leaf for leaf in leaves[:limit])
    if len(leaves) > limit:
        out.append(f"{prefix}… {len(leaves) - limit} more files")
    return out


def _count(node: dict[str, Any]) -> int:
    return sum(_count(v) if v else 1 for v in node.values())
