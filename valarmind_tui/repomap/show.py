"""The map as `/map` and `valarmind map` print it.

`valarmind map` calls `print_map` straight from the command line: no settings, model or
session, so a warm map costs a scan and one cache read. A cold map of a big tree is a draft
(`refine.py`), and says so in its footer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from valarmind_tui.repomap.builder import RepoMapResult
from valarmind_tui.repomap.refine import build_map

DRAFT_NOTE = ("\ndraft: Python read without its grammar for speed; the exact map is being built "
              "in the background")


def format_map(result: RepoMapResult, as_json: bool = False) -> str:
    """The map text with a footer (files, tags, what was skipped), or its JSON."""
    if as_json:
        return result.to_json()
    skipped = ", ".join(f"{n} {why}" for why, n in result.skipped.items() if n)
    footer = f"\n\n{len(result.files)} files, {result.tags_count:,} tags"
    footer += f"; skipped: {skipped}" if skipped else ""
    footer += DRAFT_NOTE if result.draft else ""
    return result.text + footer


def print_map(root: Path, tokens: int, as_json: bool = False,
              shown: Callable[[str], str] = str) -> int:
    """`valarmind map`: print the map of `root` within `tokens`; the exit status. `shown`
    makes the text safe for a terminal (file names and code come from the repository); the
    JSON is ASCII, every other character escaped, so its data stays exact."""
    result, _ = build_map(root, tokens)
    text = json.dumps(result.to_dict()) if as_json else shown(format_map(result).rstrip())
    sys.stdout.write(text + "\n")
    return 0
