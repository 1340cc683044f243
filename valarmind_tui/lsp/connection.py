"""JSON-RPC 2.0 over a language server's stdin and stdout: requests with a time limit,
notifications both ways, and answers to the few requests a server sends us.

A server may ask us things (`workspace/configuration`, progress tokens, capability
registrations); we answer what a read-only client can and refuse the rest. It is never allowed
to change files: `workspace/applyEdit` is answered `applied: false`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from valarmind_tui.lsp.framing import FramingError, encode, read_message

METHOD_NOT_FOUND = -32601
NULL_ANSWERS = frozenset({
    "window/workDoneProgress/create", "client/registerCapability",
    "client/unregisterCapability", "window/showMessageRequest", "window/showDocument",
    "workspace/codeLens/refresh", "workspace/semanticTokens/refresh",
    "workspace/inlayHint/refresh", "workspace/inlineValue/refresh",
    "workspace/diagnostic/refresh", "workspace/foldingRange/refresh",
})
"""Server requests answered with null: nothing for us to do, and the server must not wait."""


class ServerGone(Exception):
    """The server's stream ended or broke; `reason` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ResponseError(Exception):
    """The server answered a request with an error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code


Notified = Callable[[str, Any], None]


class LspConnection:
    """One server's stdio. `start()` begins reading; every request fails with ServerGone once
    the stream ends."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 root: Path, on_notification: Notified,
                 on_gone: Callable[[], None] = lambda: None) -> None:
        self._reader = reader
        self._writer = writer
        self._root = root
        self._on_notification = on_notification
        self._on_gone = on_gone
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._task: asyncio.Task[None] | None = None
        self.gone: str | None = None
        """Why the stream ended; None while it is open."""

    def start(self) -> None:
        self._task = asyncio.create_task(self._read_loop(), name="lsp-reader")

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        """The result; TimeoutError when the server takes longer than `timeout` (the request
        is cancelled on its side), ResponseError, ServerGone."""
        if self.gone is not None:
            raise ServerGone(self.gone)
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": request_id, "method": method,
                              "params": params})
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            with contextlib.suppress(ServerGone, OSError):
                await self.notify("$/cancelRequest", {"id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def close(self) -> None:
        """Stop reading (the process is ended by its owner)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        self._fail_pending(self.gone or "the connection was closed")

    async def _send(self, message: dict[str, Any]) -> None:
        if self.gone is not None:
            raise ServerGone(self.gone)
        try:
            self._writer.write(encode(message))
            await self._writer.drain()
        except (ConnectionError, OSError) as exc:
            self._end(f"writing to it failed ({exc})")
            raise ServerGone(self.gone or "") from None

    async def _read_loop(self) -> None:
        try:
            while True:
                message = await read_message(self._reader)
                if message is None:
                    self._end("its output ended")
                    return
                await self._dispatch(message)
        except FramingError as exc:
            self._end(f"it sent a malformed message: {exc}")
        except (ConnectionError, OSError) as exc:
            self._end(f"reading from it failed ({exc})")

    async def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str) and "id" in message:
            await self._answer(message["id"], method, message.get("params"))
        elif isinstance(method, str):
            self._on_notification(method, message.get("params"))
        elif isinstance(message.get("id"), int):
            future = self._pending.get(message["id"])
            if future is None or future.done():
                return
            error = message.get("error")
            if isinstance(error, dict):
                future.set_exception(ResponseError(
                    int(error.get("code", 0)) if isinstance(error.get("code"), int) else 0,
                    str(error.get("message", ""))[:500]))
            else:
                future.set_result(message.get("result"))

    async def _answer(self, request_id: Any, method: str, params: Any) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if method == "workspace/configuration":
            items = params.get("items") if isinstance(params, dict) else None
            reply["result"] = [None] * (len(items) if isinstance(items, list) else 0)
        elif method == "workspace/workspaceFolders":
            reply["result"] = [{"uri": self._root.as_uri(), "name": self._root.name}]
        elif method == "workspace/applyEdit":
            reply["result"] = {"applied": False,
                               "failureReason": "this client never lets a server edit files"}
        elif method in NULL_ANSWERS:
            reply["result"] = None
        else:
            reply["error"] = {"code": METHOD_NOT_FOUND, "message": f"{method} is not supported"}
        with contextlib.suppress(ServerGone):
            await self._send(reply)

    def _end(self, reason: str) -> None:
        if self.gone is None:
            self.gone = reason
            self._on_gone()
        self._fail_pending(self.gone)

    def _fail_pending(self, reason: str) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ServerGone(reason))
        self._pending.clear()
