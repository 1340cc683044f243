"""The model daemon: litellm imported once, serving the model calls of the next `valarmind -p`
(`python -P -m valarmind_tui.providers.daemon.server --socket PATH --idle-s N`).

Started detached by the first headless run that wants it (providers/daemon/link.py), in a
session of its own, in `/`, with the environment of protocol.daemon_env (no key, token or proxy
of whoever started it). It binds its socket under a temporary name, 0600, and renames it over
the path: a stale socket, or a daemon of another build, is replaced in one step, and a client
never meets a half-made socket. Each connection is checked (the peer's user id must be ours)
and greeted (protocol.build), then runs providers/process/worker.py's Worker: the same requests
and events as the TUI's model process. The key comes with each request and goes with it:
once no request is running, LiteLLM's cache of provider clients (each holding its key) is
emptied. The daemon leaves after `--idle-s` with no connection, and as soon as it is idle when
its socket was replaced or a client of another build met it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from valarmind_tui.providers.daemon.place import listen_private, replaced
from valarmind_tui.providers.daemon.protocol import build, peer_uid
from valarmind_tui.providers.process.worker import Worker

IDLE_CHECK_S = 1.0
FORGET_AFTER_S = 0.05
"""The clients are forgotten this long after the last stream ended (its end sent first)."""


class _SocketOut:
    """The Worker's `out`, on a connection's transport (writes never block the loop)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> int:
        if self._writer.is_closing():
            raise BrokenPipeError("the client is gone")
        self._writer.write(data)
        return len(data)

    def flush(self) -> None:
        """Nothing to do: the transport sends what it holds."""


class Daemon:
    """The connections, the running requests and when to leave."""

    def __init__(self, path: Path, idle_s: float) -> None:
        self.path, self.idle_s = path, idle_s
        self.me = build()
        self.connections = 0
        self.streams = 0
        self.served = False
        """A call has ended: what the first one loaded (the OpenAI SDK) can be frozen."""
        self.last_active = time.monotonic()
        self.retiring = False
        self.ready = False
        self.inode = 0
        self._workers: set[Worker] = set()

    def bind(self) -> socket.socket:
        """Listen at `path` (place.listen_private)."""
        sock, self.inode = listen_private(self.path)
        return sock

    def replaced(self) -> bool:
        """Our socket is no longer at `path` (another daemon took its place, or it was
        removed)."""
        return replaced(self.path, self.inode)

    async def connected(self, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is None or peer_uid(sock) != os.getuid():
            writer.close()
            return
        self.connections += 1
        worker = _Worker(_SocketOut(writer), asyncio.get_running_loop(), self)
        try:
            if await self._greeted(reader, writer):
                self._workers.add(worker)
                while line := await reader.readline():
                    worker.handle(line)
        except (ConnectionError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            worker.cancel_all()
            self._workers.discard(worker)
            self.connections -= 1
            self.last_active = time.monotonic()
            writer.close()
            if self.served and self.idle() and not _settled:  # before the next run comes
                asyncio.get_running_loop().call_soon(self._forget)

    async def _greeted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
                       ) -> bool:
        try:
            hello = json.loads(await asyncio.wait_for(reader.readline(), 10))
        except (TimeoutError, ValueError):
            return False
        writer.write(json.dumps({"hello": self.me, "pid": os.getpid(),
                                 "ready": self.ready}).encode() + b"\n")
        if not isinstance(hello, dict) or hello.get("hello") != self.me:
            self.retiring = True  # a client of another build starts its own in our place
            return False
        return True

    def loaded(self) -> None:
        """LiteLLM is imported: say so on every connection (a failure after this is a blip,
        not a broken install)."""
        self.ready = True
        for worker in self._workers:
            worker.send({"ready": 1})

    def stream_ended(self) -> None:
        self.streams -= 1
        self.served = True
        self.last_active = time.monotonic()
        if self.streams == 0:  # after the answer's last line went out
            asyncio.get_running_loop().call_later(FORGET_AFTER_S, self._forget)

    def _forget(self) -> None:
        if self.streams == 0:
            asyncio.ensure_future(forget_clients(self.idle))

    def idle(self) -> bool:
        """Nothing streams and no run is connected."""
        return self.streams == 0 and self.connections == 0

    def should_leave(self) -> bool:
        if self.connections:
            return False
        if self.retiring or self.replaced():
            return True
        return time.monotonic() - self.last_active >= self.idle_s


class _Worker(Worker):
    """A Worker that tells the daemon when a stream starts and ends."""

    def __init__(self, out: _SocketOut, loop: asyncio.AbstractEventLoop, daemon: Daemon
                 ) -> None:
        super().__init__(out, loop)
        self._daemon = daemon

    async def _stream(self, request_id: int, message: dict[str, object]) -> None:
        self._daemon.streams += 1
        try:
            await super()._stream(request_id, message)
        finally:
            self._daemon.stream_ended()


_settled = False
_closing = 0
"""How many `forget_clients` are closing clients they took out of the cache."""


async def forget_clients(idle: Callable[[], bool] = lambda: False) -> None:
    """Close and drop LiteLLM's cached provider clients (each holds the key it was made with),
    then collect them: a client and its last response's headers are cycles, kept until
    collected. The first time that leaves the daemon `idle` with no client cached and no
    client still being closed, what lives is frozen (`_settle`)."""
    global _closing
    litellm = sys.modules.get("litellm")
    cache = getattr(litellm, "in_memory_llm_clients_cache", None)
    if cache is None:
        return
    closing = [_closed(client) for client in cache.cache_dict.values()]
    with contextlib.suppress(Exception):
        cache.flush_cache()
    _closing += 1
    try:
        await asyncio.gather(*closing)
    finally:
        _closing -= 1
    del closing
    gc.collect()
    # Checked with no await since the collection. A client another call is still closing
    # (the stream's end began it, the run left meanwhile) is alive: frozen, it would never
    # be collected, key and all; that call settles once it has let go of it.
    if idle() and not cache.cache_dict and not _closing:
        _settle()


def _settle() -> None:
    """Freeze what survived the collection, once: the OpenAI SDK's modules load on the first
    call, after LiteLLM's import was frozen, and each call's collection walked them again (~30
    ms of the daemon's ~40 ms of CPU per one-shot). Only what lives when nothing streams, no run
    is connected and no client is cached is frozen: no object holding a key."""
    global _settled
    if not _settled:
        _settled = True
        gc.freeze()


async def _closed(client: object) -> None:
    close = getattr(client, "close", None)
    if close is not None and asyncio.iscoroutinefunction(close):
        with contextlib.suppress(Exception):
            await close()


async def serve(path: Path, idle_s: float) -> int:
    daemon = Daemon(path, idle_s)
    sock = daemon.bind()
    server = await asyncio.start_unix_server(daemon.connected, sock=sock, limit=2**26)
    from valarmind_tui.providers.litellm_call import load_litellm_async

    load = asyncio.ensure_future(load_litellm_async())
    load.add_done_callback(lambda _f: daemon.loaded())
    while not daemon.should_leave():
        await asyncio.sleep(IDLE_CHECK_S)
    server.close()  # the socket file stays: the next client finds it refused and replaces it
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="valarmind model daemon")
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--idle-s", type=float, default=600.0)
    args = parser.parse_args(argv)
    return asyncio.run(serve(args.socket, args.idle_s))


if __name__ == "__main__":
    from valarmind_tui.core.fast_exit import exit_without_teardown

    exit_without_teardown(main())
