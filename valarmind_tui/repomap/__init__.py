"""The repository map: tree-sitter tags, a definition/reference graph ranked by personalized
PageRank, rendered as signatures within a token budget (`RepoMap(root).build(...)`).

Start with `builder.py`; `pipeline.py` is the cold part, `refine.py` the draft refined in the
background. May import `safety`, `core`.
"""

from __future__ import annotations

from valarmind_tui.repomap.builder import BuildStats, RepoMap, RepoMapResult

__all__ = ["BuildStats", "RepoMap", "RepoMapResult"]
