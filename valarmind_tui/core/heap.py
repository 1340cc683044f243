"""Handing the memory a process freed back to the system.

Python returns a freed block to the C heap (glibc's malloc), which keeps it for the next
allocation instead of giving the pages back: after a big import or an answer that built many
short-lived objects the process stays as large as its peak. `malloc_trim(0)` releases the free
pages (the top of the heap and the whole free pages inside it). A no-op where the C library has
no such call (musl, macOS, Windows).
"""

from __future__ import annotations

import ctypes
from functools import cache
from typing import Any


@cache
def _malloc_trim() -> Any | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # the C library this interpreter runs on
    except (AttributeError, OSError):
        return None


def release_free_memory() -> None:
    """Give the pages the C heap holds free back to the system (glibc only)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
