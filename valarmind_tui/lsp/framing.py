"""LSP's base protocol: JSON messages behind a `Content-Length` header, over a byte stream.

A server is a child process we do not trust with our memory: a header is at most
`MAX_HEADER_BYTES`, a body at most `MAX_BODY_BYTES`; past that, or on a malformed frame, the
stream is given up (`FramingError`) and the server is restarted.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

MAX_HEADER_BYTES = 8192
MAX_BODY_BYTES = 64 * 1024 * 1024
"""A workspace symbol list or a big file's semantic tokens stay well under this."""


class FramingError(Exception):
    """The server sent something that is not an LSP frame."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a frame."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length: int | None = None
    seen = 0
    while True:
        try:
            line = await reader.readuntil(b"\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial and length is None and seen == 0:
                return None
            raise FramingError("the stream ended inside a header") from None
        except asyncio.LimitOverrunError:
            raise FramingError("a header line is too long") from None
        seen += len(line)
        if seen > MAX_HEADER_BYTES:
            raise FramingError("the header is too long")
        if line == b"\r\n":
            break
        name, _, value = line.decode("ascii", errors="replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"bad Content-Length: {value.strip()[:40]!r}") from None
    if length is None or length < 0:
        raise FramingError("a frame without Content-Length")
    if length > MAX_BODY_BYTES:
        raise FramingError(f"a frame of {length} bytes (the limit is {MAX_BODY_BYTES})")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise FramingError("the stream ended inside a frame") from None
    try:
        message = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FramingError(f"a frame that is not JSON ({exc})") from None
    if not isinstance(message, dict):
        raise FramingError("a frame that is not a JSON object")
    return message
