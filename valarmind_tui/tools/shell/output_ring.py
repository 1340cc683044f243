"""A background command's output on disk: a file of fixed size written round, like a ring.

Offsets are counted from the command's first byte and never go back, so a reader asks "what is
new since offset N" (`command_output(handle, since)`); when the ring wrapped past N, the reply
says how many bytes were dropped and starts at the oldest byte kept. Text is masked for secrets
before it is written (safety/secrets), a line at a time, so a token split between two reads of
the pipe is still seen whole; a line longer than `LINE_LIMIT` is masked in pieces.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CAPACITY = 1024 * 1024
LINE_LIMIT = 64 * 1024
"""An unfinished line is written (masked) once it holds this many bytes."""


@dataclass(frozen=True)
class OutputSlice:
    """What a reader gets: the text from `start` to `end`, and what was lost before it."""

    text: str
    start: int
    end: int
    """The offset to pass as `since` next time."""
    written: int = 0
    """Bytes written so far: more than `end` when `limit` cut the slice."""
    dropped: int = 0
    """Bytes between the asked offset and `start` that the ring no longer holds."""


class OutputRing:
    """One command's output, bounded to `capacity` bytes on disk (file mode 0600)."""

    def __init__(self, path: Path, *, capacity: int = DEFAULT_CAPACITY,
                 mask: Callable[[str], str] | None = None) -> None:
        self.path = path
        self.capacity = capacity
        self._mask = mask or (lambda text: text)
        self._written = 0
        self._pending = bytearray()
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)

    @property
    def written(self) -> int:
        """Bytes written so far (after masking): the offset of the next byte."""
        return self._written

    def feed(self, chunk: bytes) -> None:
        """Bytes from the command: every finished line is masked and written."""
        self._pending += chunk
        cut = self._pending.rfind(b"\n") + 1
        if cut == 0 and len(self._pending) >= LINE_LIMIT:
            cut = len(self._pending)
        if cut:
            ready = bytes(self._pending[:cut])
            del self._pending[:cut]
            self._write(ready)

    def flush(self) -> None:
        """The command ended: write what is left of its last line."""
        if self._pending:
            ready = bytes(self._pending)
            self._pending.clear()
            self._write(ready)

    def _write(self, data: bytes) -> None:
        text = self._mask(data.decode("utf-8", errors="replace"))
        data = text.encode("utf-8")
        if len(data) > self.capacity:  # only the last `capacity` bytes can be kept
            self._written += len(data) - self.capacity
            data = data[-self.capacity:]
        with self._lock:
            position = self._written % self.capacity
            first = data[:self.capacity - position]
            os.pwrite(self._fd, first, position)
            if len(first) < len(data):
                os.pwrite(self._fd, data[len(first):], 0)
            self._written += len(data)

    def read(self, since: int = 0, limit: int | None = None) -> OutputSlice:
        """The output from offset `since`, at most `limit` bytes of it (the oldest first:
        read again from the slice's `end` for the rest)."""
        with self._lock:
            written = self._written
            oldest = max(0, written - self.capacity)
            start = min(max(since, oldest), written)
            end = written if limit is None else min(written, start + limit)
            data = self._read_range(start, end)
        dropped = max(0, min(oldest, written) - since)
        return OutputSlice(data.decode("utf-8", errors="replace"), start, end, dropped=dropped,
                           written=written)

    def _read_range(self, start: int, end: int) -> bytes:
        if end <= start or self._fd < 0:  # closed with its session: nothing to show
            return b""
        position = start % self.capacity
        size = end - start
        first = os.pread(self._fd, min(size, self.capacity - position), position)
        if len(first) < size:
            return first + os.pread(self._fd, size - len(first), 0)
        return first

    def tail(self, lines: int) -> str:
        """The last `lines` lines kept (for /jobs)."""
        text = self.read(max(0, self._written - 64 * 1024)).text
        return "\n".join(text.rstrip("\n").splitlines()[-lines:])

    def close(self, *, remove: bool = False) -> None:
        """Stop; `remove` deletes the file too (the session that kept it ended)."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()
