"""One language server for the session: started on first use, kept warm, restarted after a
crash or a hang (at most `max_restarts` times), never fatal.

Every failure is a `ServerTrouble` carrying a sentence for the model and the person; /lsp lists
what happened (`problems`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from valarmind_tui.lsp.connection import LspConnection, ResponseError, ServerGone
from valarmind_tui.lsp.documents import (
    DiagnosticsBoard,
    Document,
    OpenDocuments,
    Published,
    read_document,
)
from valarmind_tui.lsp.process import CannotStart, ServerProcess, server_argv
from valarmind_tui.lsp.servers import LANGUAGE_IDS, Found
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings

SHUTDOWN_TIMEOUT_S = 2.0
PROBLEMS_KEPT = 10
YOUNG_S = 30.0
EMPTY_RETRIES = 3
RETRY_PAUSE_S = 1.0
"""A server that started less than YOUNG_S ago may not have read the whole project yet
(pyright answers its first references request from the open files alone): an empty answer
from it is asked again, up to EMPTY_RETRIES times, RETRY_PAUSE_S apart."""


class ServerTrouble(Exception):
    """The server could not answer: why, in one sentence."""


@dataclass(frozen=True)
class Synced:
    """A document as the server now has it."""

    uri: str
    version: int
    changed: bool
    """Whether this sync sent new text (else the server's diagnostics are current)."""
    before: int
    """The diagnostics board's sequence number before the sync."""


class LanguageServer:
    """A server found for one language in one project."""

    def __init__(self, found: Found, root: Path, settings: LspSettings,
                 sandbox: Sandbox | None,
                 on_problem: Callable[[str], None] = lambda problem: None) -> None:
        self.found = found
        self.name = found.spec.name
        self.root = root
        self.settings = settings
        self.sandbox = sandbox
        self.state = "not started"
        """not started, starting, running, crashed, down, stopped."""
        self.restarts = 0
        self.problems: list[str] = []
        """What went wrong, oldest first (the last PROBLEMS_KEPT)."""
        self._on_problem = on_problem
        self.started_s: float | None = None
        """How long its last start took, to the answer to `initialize`."""
        self.board = DiagnosticsBoard()
        self._docs = OpenDocuments()
        self._process: ServerProcess | None = None
        self._conn: LspConnection | None = None
        self._lock = asyncio.Lock()
        self._down = ""
        self._ready_at: float | None = None

    @property
    def pid(self) -> int | None:
        return self._process.proc.pid if self._process is not None and self.alive else None

    @property
    def alive(self) -> bool:
        return (self._process is not None and self._process.exit_code is None
                and self._conn is not None and self._conn.gone is None)

    def open_count(self) -> int:
        return len(self._docs)

    async def ensure_running(self) -> None:
        """Start it, or restart it after a crash; ServerTrouble when it is down for good."""
        async with self._lock:
            if self.alive:
                return
            if self._down:
                raise ServerTrouble(self._down)
            if self._process is not None or self.state == "crashed":  # it ran and stopped
                if self._process is not None:
                    self._note(f"{self.name} stopped: {self._ending()}")
                    await self._discard()
                if self.restarts >= self.settings.max_restarts:
                    self._give_up(f"{self.name} crashed and was restarted "
                                  f"{self.restarts} times; it stays off for this session")
                self.restarts += 1
            await self._start()

    async def _start(self) -> None:
        self.state = "starting"
        begun = time.monotonic()
        try:
            argv = server_argv(self.found.argv, self.root, self.sandbox)
            self._process = await ServerProcess.start(argv, self.root)
        except CannotStart as exc:
            self._give_up(f"{self.name} cannot start: {exc}")
        process = self._process
        assert process is not None
        self._conn = LspConnection(process.reader, process.writer, root=self.root,
                                   on_notification=self._notified, on_gone=self.board.wake)
        self._conn.start()
        try:
            await self._conn.request("initialize", self._initialize_params(),
                                     self.settings.start_timeout_s)
            await self._conn.notify("initialized", {})
        except (TimeoutError, ServerGone, ResponseError) as exc:
            detail = (f"did not answer within {self.settings.start_timeout_s:g} s"
                      if isinstance(exc, TimeoutError) else f"failed to start ({exc})")
            said = process.last_words()
            await self._discard()
            self._give_up(f"{self.name} {detail}" + (f"; it said: {said}" if said else ""))
        self.started_s = time.monotonic() - begun
        self._ready_at = time.monotonic()
        self.state = "running"
        with contextlib.suppress(ServerGone):  # gone again: the next use sees it
            for uri, doc in self._docs.items():  # a restart: the server gets back its files
                doc.version += 1
                await self._conn.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": doc.language_id, "version": doc.version,
                    "text": doc.text}})

    def _initialize_params(self) -> dict[str, Any]:
        root = self.root
        return {
            "processId": None,  # ours does not exist in the sandbox's PID namespace
            "clientInfo": {"name": "valarmind"},
            "rootUri": root.as_uri(), "rootPath": str(root),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {
                "general": {"positionEncodings": ["utf-16"]},
                "workspace": {"configuration": True, "workspaceFolders": True},
                "window": {"workDoneProgress": False},
                "textDocument": {
                    "synchronization": {"didSave": True, "dynamicRegistration": False},
                    "publishDiagnostics": {"versionSupport": True},
                    "definition": {"linkSupport": False},
                    "references": {},
                    "hover": {"contentFormat": ["plaintext", "markdown"]},
                },
            },
        }

    async def sync(self, path: Path) -> Synced | None:
        """Send the file's current text (open it, or change it when it differs from what the
        server has); None when it cannot be sent (gone, binary, too large)."""
        await self.ensure_running()
        conn = self._connection()
        uri = path.as_uri()
        text = read_document(path)
        doc = self._docs.get(uri)
        before = self.board.seq
        try:
            if text is None:
                if doc is not None:
                    self._docs.drop(uri)
                    await conn.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
                return None
            if doc is not None and doc.text == text:
                return Synced(uri, doc.version, False, before)
            if doc is None:
                doc = Document(path, LANGUAGE_IDS.get(path.suffix.lower(), "plaintext"), 1, text)
                for old in self._docs.put(uri, doc):
                    await conn.notify("textDocument/didClose", {"textDocument": {"uri": old}})
                await conn.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": doc.language_id, "version": 1, "text": text}})
            else:
                doc.version += 1
                doc.text = text
                await conn.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": doc.version},
                    "contentChanges": [{"text": text}]})
                await conn.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        except ServerGone as exc:
            raise ServerTrouble(f"{self.name} stopped: {exc.reason}") from None
        return Synced(uri, doc.version, True, before)

    def document_text(self, uri: str) -> str | None:
        doc = self._docs.get(uri)
        return doc.text if doc is not None else None

    def open_uris(self) -> list[str]:
        return [uri for uri, _ in self._docs.items()]

    def open_paths(self) -> list[Path]:
        return [doc.path for _, doc in self._docs.items()]

    async def diagnostics(self, synced: Synced, timeout: float) -> Published | None:
        """The diagnostics for the synced text, waiting for them when it was new. A server
        that stops meanwhile is restarted (it gets its documents back) and waited for once
        more."""
        if not synced.changed and synced.uri in self.board.latest:
            return self.board.latest[synced.uri]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        found = await self.board.wait(synced.uri, after=synced.before, version=synced.version,
                                      timeout=timeout, gone=lambda: not self.alive)
        if found is not None or self.alive:
            return found
        before = self.board.seq
        await self.ensure_running()
        doc = self._docs.get(synced.uri)
        if doc is None:
            return None
        return await self.board.wait(synced.uri, after=before, version=doc.version,
                                     timeout=max(0.0, deadline - loop.time()),
                                     gone=lambda: not self.alive)

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """A request with the configured time limit; a server that lets it pass is taken as
        hung and ended (the next use restarts it). A young server's empty answer is asked
        again (YOUNG_S)."""
        for _ in range(EMPTY_RETRIES):
            result = await self._request(method, params)
            if result or not self.young:
                return result
            await asyncio.sleep(RETRY_PAUSE_S)
        return await self._request(method, params)

    @property
    def young(self) -> bool:
        """Started less than YOUNG_S ago: it may still be reading the project."""
        return self._ready_at is not None and time.monotonic() - self._ready_at < YOUNG_S

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        await self.ensure_running()
        conn = self._connection()
        timeout = self.settings.request_timeout_s
        try:
            return await conn.request(method, params, timeout)
        except TimeoutError:
            self._note(f"{self.name} did not answer {method} within {timeout:g} s and was "
                       "ended as hung")
            await self._end_process()
            raise ServerTrouble(f"{self.name} did not answer within {timeout:g} s; it will be "
                                "restarted on the next call") from None
        except ServerGone as exc:
            raise ServerTrouble(f"{self.name} stopped: {exc.reason}") from None
        except ResponseError as exc:
            raise ServerTrouble(f"{self.name} answered with an error: {exc}") from None

    async def stop(self) -> None:
        """Shut it down politely, then end its process group."""
        async with self._lock:
            if self.alive and self._conn is not None:
                with contextlib.suppress(TimeoutError, ServerGone, ResponseError, OSError):
                    await self._conn.request("shutdown", None, SHUTDOWN_TIMEOUT_S)
                    await self._conn.notify("exit", None)
            await self._discard()
            if not self._down:
                self.state = "stopped"

    def _connection(self) -> LspConnection:
        if self._conn is None:
            raise ServerTrouble(f"{self.name} is not running")
        return self._conn

    def _notified(self, method: str, params: Any) -> None:
        if method == "textDocument/publishDiagnostics":
            self.board.publish(params)

    def _ending(self) -> str:
        process, conn = self._process, self._conn
        parts = [conn.gone] if conn is not None and conn.gone else []
        if process is not None and process.exit_code is not None:
            parts.append(f"exit code {process.exit_code}")
        said = process.last_words() if process is not None else ""
        return "; ".join(parts or ["it stopped"]) + (f"; it said: {said}" if said else "")

    async def _end_process(self) -> None:
        await self._discard()
        self.state = "crashed"

    async def _discard(self) -> None:
        if self._conn is not None:
            await self._conn.close()
        if self._process is not None:
            await self._process.kill()
        self._conn = None
        self._process = None

    def _give_up(self, reason: str) -> NoReturn:
        self._down = reason
        self.state = "down"
        self._note(reason)
        raise ServerTrouble(reason)

    def _note(self, problem: str) -> None:
        self.problems = [*self.problems, problem][-PROBLEMS_KEPT:]
        self._on_problem(problem)
