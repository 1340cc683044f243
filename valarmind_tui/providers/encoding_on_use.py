"""LiteLLM's default encoding, loaded when something first reads it.

LiteLLM's Anthropic path loads its default tiktoken encoding (cl100k, 41 MB resident, ~0.1 s)
on its first request, only to hand it to the handler for token estimates: a process where no
estimate is made (the model process, which has them off; any stream whose provider reports its
usage) kept it all the same. The handler gets a stand-in that loads the encoding the first time
it is read.
"""

from __future__ import annotations

import sys
from typing import Any


class EncodingOnUse:
    """LiteLLM's default encoding, loaded the first time anything is read from it."""

    def __getattr__(self, name: str) -> Any:
        from litellm._lazy_imports import get_default_encoding

        return getattr(get_default_encoding(), name)


def encoding_on_use() -> None:
    """Give LiteLLM's handlers the stand-in, where LiteLLM has not loaded its encoding yet."""
    main = sys.modules.get("litellm.main")
    if main is not None and getattr(main, "_encoding_cache", False) is None:
        vars(main)["_encoding_cache"] = EncodingOnUse()
