"""The repository map: tree-sitter tags, a definition/reference graph ranked by personalized
PageRank, rendered as signatures within a token budget (`RepoMap(root).build(...)`).

Start with `builder.py`; `pipeline.py` is the cold part, `refine.py` the draft refined in the
background, `parse_child.py` the parse of a process that runs threads (the TUI), `files.py`
which files are read (never outside the project) and how a file is stamped so that no edit is
served stale (docs/repomap-scale.md). May import `safety`, `core`.
"""

from __future__ import annotations

from valarmind_tui.repomap.builder import BuildStats, RepoMap, RepoMapResult

__all__ = ["BuildStats", "RepoMap", "RepoMapResult"]
