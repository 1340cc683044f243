"""LSP's Content-Length frames: read back what was written; a bad frame ends the stream."""

from __future__ import annotations

import asyncio

import pytest

from valarmind_tui.lsp.framing import MAX_BODY_BYTES, FramingError, encode, read_message


def reader_of(data: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return reader


async def test_messages_are_read_back_one_by_one_with_non_ascii_text() -> None:
    first = {"jsonrpc": "2.0", "id": 1, "result": {"text": "naïve ✓ 𝄞"}}
    second = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
    reader = reader_of(encode(first) + encode(second))
    assert await read_message(reader) == first
    assert await read_message(reader) == second
    assert await read_message(reader) is None


async def test_other_headers_are_ignored() -> None:
    body = b'{"id":3,"result":null}'
    frame = (b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
             b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert await read_message(reader_of(frame)) == {"id": 3, "result": None}


@pytest.mark.parametrize("frame", [
    b"Content-Length: 10\r\n\r\n{}",  # cut short
    b"Content-Type: x\r\n\r\n{}",  # no length
    b"Content-Length: ten\r\n\r\n{}",
    b"Content-Length: 2\r\n\r\n[]",  # not an object
    b"Content-Length: 2\r\n\r\n{x",
    b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1),
    b"X: " + b"a" * 9000 + b"\r\n\r\n",
])
async def test_a_malformed_frame_is_a_framing_error(frame: bytes) -> None:
    with pytest.raises(FramingError):
        await read_message(reader_of(frame))
