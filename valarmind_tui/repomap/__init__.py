"""The repository map: tree-sitter tags, a definition/reference graph ranked by personalized
PageRank, rendered as signatures within a token budget (`RepoMap(root).build(...)`)."""

from __future__ import annotations

from valarmind_tui.repomap.builder import BuildStats, RepoMap, RepoMapResult

__all__ = ["BuildStats", "RepoMap", "RepoMapResult"]
