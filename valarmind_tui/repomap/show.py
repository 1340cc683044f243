"""The map as `/map` and `valarmind map` print it.

`valarmind map` calls `print_map` straight from the command line: no settings, model or
session, so a warm map costs a scan and one cache read.
"""

from __future__ import annotations

import sys
from pathlib import Path

from valarmind_tui.repomap.builder import RepoMap, RepoMapResult


def format_map(result: RepoMapResult, as_json: bool = False) -> str:
    """The map text with a footer (files, tags, what was skipped), or its JSON."""
    if as_json:
        return result.to_json()
    skipped = ", ".join(f"{n} {why}" for why, n in result.skipped.items() if n)
    footer = f"\n\n{len(result.files)} files, {result.tags_count:,} tags"
    footer += f"; skipped: {skipped}" if skipped else ""
    return result.text + footer


def print_map(root: Path, tokens: int, as_json: bool = False) -> int:
    """`valarmind map`: print the map of `root` within `tokens`; the exit status."""
    repo_map = RepoMap(root)
    try:
        result = repo_map.build(token_budget=tokens)
    finally:
        repo_map.close()
    sys.stdout.write(format_map(result, as_json).rstrip() + "\n")
    return 0
