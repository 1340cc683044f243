"""Which grammar parses which file, and the tags query of each language (`queries/*.scm`).

Grammars come from tree-sitter-language-pack 0.13.0, the last release that bundles them (1.x
downloads at first use and fails offline). tree_sitter is imported only inside functions.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import PurePath
from typing import Any

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php",
    ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".scala": "scala", ".sc": "scala",
    ".lua": "lua", ".sh": "bash", ".bash": "bash",
    ".ex": "elixir", ".exs": "elixir", ".hs": "haskell", ".ml": "ocaml",
    ".dart": "dart", ".r": "r", ".R": "r", ".jl": "julia", ".zig": "zig",
}

# How deep below the root a definition may start: deeper ones are local helpers, and a bounded
# walk is several times cheaper than a full one (references still use a full walk).
DEF_MAX_DEPTH = 6


def language_for(path: str | PurePath) -> str | None:
    """The grammar name for a file, or None when ValarMind has no tags query for it."""
    # string operations, as os.path.splitext reads a suffix: the warm scan asks this of every
    # file (100,000 of them in a big tree)
    name = (path if isinstance(path, str) else os.fspath(path)).rpartition("/")[2].lstrip(".")
    dot = name.rfind(".")
    if dot < 0:
        return None
    suffix = name[dot:]
    return EXTENSIONS.get(suffix) or EXTENSIONS.get(suffix.lower())


def supported_languages() -> list[str]:
    """Languages that have a tags query file."""
    from importlib import resources

    root = resources.files(__package__).joinpath("queries")
    return sorted(p.name[: -len("-tags.scm")] for p in root.iterdir()
                  if p.name.endswith("-tags.scm"))


def query_source(lang: str) -> str:
    """The tags query of `lang`, with `; include: FILE` lines replaced by that file's text
    (JavaScript, TypeScript and TSX share their common patterns this way)."""
    return _read_query(f"{lang}-tags.scm")


def _read_query(name: str) -> str:
    from importlib import resources  # not on the warm path, which only needs language_for

    text = resources.files(__package__).joinpath("queries", name).read_text(encoding="utf-8")
    return "".join(
        _read_query(line.split(":", 1)[1].strip()) if line.startswith("; include:") else line
        for line in text.splitlines(keepends=True)
    )


def split_query(source: str) -> tuple[str, str]:
    """Split a tags query into (definition patterns, reference patterns) by top-level pattern."""
    defs: list[str] = []
    refs: list[str] = []
    for pattern in _top_level_patterns(source):
        (defs if "@definition." in pattern else refs).append(pattern)
    return "\n".join(defs), "\n".join(p for p in refs if "@reference." in p)


def _top_level_patterns(source: str) -> list[str]:
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(";")]
    text = "\n".join(lines)
    patterns, depth, start, in_str = [], 0, 0, False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "([":
            if depth == 0:
                start = i
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                end = i + 1
                while end < len(text) and text[end] not in "\n([":
                    end += 1
                patterns.append(text[start:end].strip())
                i = end - 1
        i += 1
    return patterns


@cache
def queries(lang: str) -> tuple[Any, Any, Any]:
    """(parser, definitions query, references query) for a language; compiled once per process."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language, get_parser

    language = get_language(lang)  # type: ignore[arg-type]  # the pack types names as a Literal
    def_src, ref_src = split_query(query_source(lang))
    ref_query = Query(language, ref_src) if ref_src.strip() else None
    if ref_query is not None:
        # Only the names are counted: not building nodes for the whole reference saves ~13%.
        for i in range(ref_query.capture_count):
            capture = ref_query.capture_name(i)
            if capture.startswith("reference."):
                ref_query.disable_capture(capture)
    # why the ignore below: the pack types names as a Literal
    return get_parser(lang), Query(language, def_src), ref_query  # type: ignore[arg-type]  # why: above
