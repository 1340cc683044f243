"""Token counts by tiktoken, offline: tiktoken's own `get_encoding`, reading the encoding files
LiteLLM ships in its package (`litellm_core_utils/tokenizers`, or `CUSTOM_TIKTOKEN_CACHE_DIR`
as LiteLLM honours it) through `TIKTOKEN_CACHE_DIR`. An encoding whose file is not there is
never downloaded: the caller falls back to an estimate.

An encoding costs the process that loads it 39 MB (cl100k_base) to 71 MB (o200k_base), so a
caller that only needs to know a text fits a budget asks `most_tokens` first: no text has more
tokens than UTF-8 bytes, and a conversation far from its window never loads a tokenizer.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from functools import cache
from typing import Any

from valarmind_tui.core.heap import release_free_memory

BUDGET_ENCODINGS = ("cl100k_base", "o200k_base")
"""The encodings a budget must hold under (GPT-4-class and GPT-4o-class models)."""
_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


def estimate_tokens(text: str) -> int:
    """About 4 characters per token: free, and close enough where an estimate will do."""
    return (len(text) + 3) // 4


def most_tokens(text: str) -> int:
    """At least as many as `count_tokens(text)` in any encoding, without a tokenizer: its UTF-8
    bytes (a token stands for one byte or more; the estimate is smaller still)."""
    return len(text.encode("utf-8", "surrogatepass"))


def bundled_cache_dir() -> str | None:
    """The folder of tiktoken files that ships with LiteLLM, if LiteLLM is installed."""
    custom = os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR")
    if custom:
        return custom
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(next(iter(spec.submodule_search_locations)), "litellm_core_utils",
                          "tokenizers")
    return folder if os.path.isdir(folder) else None


_ASKED: set[str] = set()


@cache
def encoding(name: str = "cl100k_base") -> Any | None:
    """tiktoken's encoding `name` from the bundled files, or None when it is not on disk."""
    try:
        return _load(name)
    finally:
        _ASKED.add(name)


def encoding_ready(name: str = "cl100k_base") -> bool:
    """Whether `encoding(name)` answers at once (loaded, or found missing, before)."""
    return name in _ASKED


def _load(name: str) -> Any | None:
    folder = bundled_cache_dir()
    if folder is None or importlib.util.find_spec("tiktoken") is None:
        return None
    # tiktoken names its cache files by the sha1 of the download URL.
    key = hashlib.sha1(_URL.format(name).encode()).hexdigest()
    if not os.path.isfile(os.path.join(folder, key)):
        return None
    os.environ["TIKTOKEN_CACHE_DIR"] = folder  # what LiteLLM sets on import, too
    try:
        import tiktoken

        loaded = tiktoken.get_encoding(name)
    except Exception:  # a corrupt file or an unknown name: the caller estimates
        return None
    _drop_python_ranks(loaded)
    return loaded


def _drop_python_ranks(loaded: Any) -> None:
    """tiktoken keeps the vocabulary it built its Rust encoder from as a Python dict (100,000
    to 200,000 byte strings: 11 MB for cl100k_base) only to pickle the encoding; counting uses
    the Rust copy. Emptied, with the pages it freed given back: 39 -> 24 MB for cl100k_base.
    tests/test_tokenizer_memory.py compares its counts with an untouched encoding's."""
    if isinstance(getattr(loaded, "_mergeable_ranks", None), dict):
        loaded._mergeable_ranks = {}
        release_free_memory()


def count_tokens(text: str, name: str = "cl100k_base") -> int:
    """Tokens of `text` in encoding `name`, or the estimate when it is not available."""
    enc = encoding(name)
    if enc is None:
        return estimate_tokens(text)
    return len(enc.encode(text, disallowed_special=()))


def budget_tokens(text: str) -> int:
    """The most tokens `text` takes in any of BUDGET_ENCODINGS (the estimate, if none is on
    disk): what must stay within a budget whatever model reads it."""
    return max(count_tokens(text, name) for name in BUDGET_ENCODINGS)
