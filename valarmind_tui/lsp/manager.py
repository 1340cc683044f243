"""The session's language servers: one per language, found and started on first use.

`after_change` is what an edit's result gains: the new diagnostics of the files it wrote, and
the errors that appeared meanwhile in the other open files (a caller the change broke). `touch`
opens the files an agent reads, in the background, so the server is warm and knows them by the
time the agent edits. The lsp_* tools call `locate`, `diagnostics_for` and `status`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.core.errors import ToolError
from valarmind_tui.lsp.importers import importers
from valarmind_tui.lsp.render import counts, diagnostic_line, shown, shown_path, uri_path
from valarmind_tui.lsp.server import LanguageServer, ServerTrouble, Synced
from valarmind_tui.lsp.servers import LANGUAGES, candidates, find_server, language_of
from valarmind_tui.safety.paths import resolve_in_project
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings

QUIET_S = 0.1
SETTLE_LIMIT_S = 0.5
"""After the edited file's diagnostics: how long the other open files' may keep coming."""
YOUNG_DIAGNOSTICS_S = 15.0
"""The least a server that just started gets to publish an edit's diagnostics."""
LISTED_DIAGNOSTICS = 200
"""lsp_diagnostics lists up to this many (an edit's result shows `max_diagnostics`)."""


@dataclass(frozen=True)
class ServerStatus:
    """One language's server, for /lsp."""

    language: str
    server: str
    """Its name, or "" when none was found."""
    state: str
    source: str = ""
    command: str = ""
    pid: int | None = None
    open_files: int = 0
    restarts: int = 0
    problems: tuple[str, ...] = ()
    start_s: float | None = None
    """How long its last start took, to the answer to `initialize`."""


class NoServer(Exception):
    """No language server serves this file: why, in one sentence."""


class LspManager:
    """The language servers of one session in one project."""

    def __init__(self, root: Path, settings: LspSettings, sandbox: Sandbox | None, *,
                 trusted: bool, path_env: str | None = None,
                 on_problem: Callable[[str], None] = lambda problem: None) -> None:
        """`on_problem` hears each crash, hang and failed start, in one sentence (the session
        publishes it as a warning)."""
        self.root = root.resolve()
        self._on_problem = on_problem
        self.settings = settings
        self.sandbox = sandbox
        self.trusted = trusted
        self._path_env = path_env
        self._servers: dict[str, LanguageServer | None] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._importers: dict[Path, list[Path]] = {}
        """Each edited file's importers, found once a session."""

    # -- finding ---------------------------------------------------------------------------
    def server_for(self, path: Path) -> LanguageServer | None:
        language = language_of(path)
        if language is None or not self.settings.enabled:
            return None
        if language not in self._servers:
            self._servers[language] = self._find(language)
        return self._servers[language]

    def _find(self, language: str) -> LanguageServer | None:
        for spec in candidates(language, self.settings.servers):
            found = find_server(spec, self.root, trusted=self.trusted,
                                commands=self.settings.commands, path=self._path_env)
            if found is not None:
                return LanguageServer(found, self.root, self.settings, self.sandbox,
                                      self._on_problem)
        return None

    def why_none(self, path: Path) -> str:
        """Why no server answers for `path`, in one sentence the model and the person read."""
        if not self.settings.enabled:
            return "Language servers are turned off (`[lsp] enabled = false`)."
        language = language_of(path)
        if language is None:
            return f"No language server handles {path.suffix or 'files without an extension'}."
        names = ", ".join(s.name for s in candidates(language, self.settings.servers))
        where = "PATH or the project's .venv/bin and node_modules/.bin" if self.trusted else \
            "PATH (a project's own environment is used only once it is trusted)"
        return (f"No language server for {language} was found on {where}; "
                f"looked for: {names or 'none configured'}.")

    def resolve(self, path: str) -> Path:
        """A project path, resolved and checked (PathOutsideProject otherwise)."""
        return resolve_in_project(self.root, path)

    def _served(self, paths: Sequence[str]) -> list[tuple[Path, LanguageServer]]:
        """The project files among `paths` that a server (not given up on) serves."""
        found: list[tuple[Path, LanguageServer]] = []
        for raw in paths:
            try:
                path = self.resolve(raw)
            except ToolError:  # outside the project: the gate refused it already
                continue
            server = self.server_for(path)
            if server is not None and server.state != "down":
                found.append((path, server))
        return found

    # -- after an edit ---------------------------------------------------------------------
    async def after_change(self, paths: Sequence[str] | None) -> str:
        """The diagnostics an edit's result gains ("" when no server serves these files).
        `paths` are what a write tool wrote; None after a command: then the open files whose
        text changed on disk."""
        if not self.settings.enabled:
            return ""
        groups: dict[LanguageServer, list[Path]] = {}
        if paths is None:
            for server in self.running():
                groups[server] = server.open_paths()
        else:
            for path, server in self._served(paths):
                groups.setdefault(server, []).append(path)
        reports = [await self._report(server, files, commanded=paths is None)
                   for server, files in groups.items() if files]
        return "\n\n".join(r for r in reports if r)

    async def _report(self, server: LanguageServer, files: list[Path], *,
                      commanded: bool) -> str:
        """One server's part of an edit's result; its failure is a line, never an error."""
        try:
            return await self._checked(server, files, commanded=commanded)
        except (ServerTrouble, OSError) as exc:
            return f"Diagnostics ({server.name}): unavailable: {exc}."

    async def _checked(self, server: LanguageServer, files: list[Path], *,
                       commanded: bool) -> str:
        timeout = self.settings.diagnostics_timeout_s
        earlier = {uri: _errors(server, uri) for uri in server.open_uris()}
        users = [] if commanded else await self._open_importers(server, files)
        synced = [s for f in files if (s := await server.sync(f)) is not None]
        if commanded:
            synced = [s for s in synced if s.changed]
            if not synced:
                return ""
        if server.young:  # its first checks load the standard library's stubs, the imports
            timeout = max(timeout, YOUNG_DIAGNOSTICS_S)
        lines: list[str] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for item in synced:
            published = await server.diagnostics(item, max(0.0, deadline - loop.time()))
            where = self._shown(item.uri)
            if published is None:
                lines.append(f"Diagnostics ({server.name}), {where}: none arrived within "
                             f"{timeout:g} s (the server may still be checking; "
                             "lsp_diagnostics asks again).")
                continue
            lines += self._file_lines(server, item.uri, published.items)
        for user in users:  # their first check, against the edit
            await server.diagnostics(user, max(0.0, deadline - loop.time()))
        if any(s.changed for s in synced):
            await server.board.settle(QUIET_S, SETTLE_LIMIT_S)
        opened = {u.uri for u in users}
        lines += self._importer_errors(server, opened)
        lines += self._broken_elsewhere(server, earlier, {s.uri for s in synced} | opened)
        return "\n".join(lines)

    async def _open_importers(self, server: LanguageServer, files: list[Path]) -> list[Synced]:
        """Open the files that import the edited ones and are not open yet (importers.py)."""
        opened = set(server.open_uris())
        found: list[Path] = []
        for edited in files:
            if edited not in self._importers:
                self._importers[edited] = await asyncio.to_thread(importers, self.root, edited)
            found += [p for p in self._importers[edited]
                      if p.as_uri() not in opened and p not in files and p not in found]
        return [s for p in found if (s := await server.sync(p)) is not None]

    def _importer_errors(self, server: LanguageServer, opened: set[str]) -> list[str]:
        """The errors of the importers opened with this edit (they had no earlier state)."""
        found: list[str] = []
        for uri in sorted(opened):
            published = server.board.latest.get(uri)
            where, text = self._shown(uri), server.document_text(uri)
            found += ["  " + diagnostic_line(d, where, text)
                      for d in shown(published.items if published else ())
                      if d.get("severity", 1) == 1]
        if not found:
            return []
        cap = self.settings.max_diagnostics
        head = [f"Errors in the files that import it, opened now ({server.name}):"]
        more = [f"  … and {len(found) - cap} more"] if len(found) > cap else []
        return head + found[:cap] + more

    def _file_lines(self, server: LanguageServer, uri: str, items: Sequence[dict[str, Any]],
                    cap: int | None = None) -> list[str]:
        where = self._shown(uri)
        kept = shown(items)
        if not kept:
            return [f"Diagnostics ({server.name}), {where}: no problems."]
        cap = cap or self.settings.max_diagnostics
        text = server.document_text(uri)
        out = [f"Diagnostics ({server.name}), {where}: {counts(kept)}:"]
        out += ["  " + diagnostic_line(d, where, text) for d in kept[:cap]]
        if len(kept) > cap:
            out.append(f"  … and {len(kept) - cap} more (lsp_diagnostics {where} lists them)")
        return out

    def _broken_elsewhere(self, server: LanguageServer, earlier: dict[str, list[str]],
                          own: set[str]) -> list[str]:
        """The errors other open files gained since before the edit."""
        found: list[str] = []
        for uri in server.open_uris():
            if uri in own:
                continue
            before = set(earlier.get(uri, []))
            text = server.document_text(uri)
            where = self._shown(uri)
            published = server.board.latest.get(uri)
            for item in shown(published.items if published else ()):
                line = diagnostic_line(item, where, text)
                if item.get("severity", 1) == 1 and _key(item) not in before:
                    found.append("  " + line)
        if not found:
            return []
        cap = self.settings.max_diagnostics
        head = [f"Errors that appeared in other open files ({server.name}):"]
        more = [f"  … and {len(found) - cap} more"] if len(found) > cap else []
        return head + found[:cap] + more

    def _shown(self, uri: str) -> str:
        path = uri_path(uri)
        return shown_path(path, self.root) if path is not None else uri

    # -- reads ------------------------------------------------------------------------------
    def touch(self, paths: Sequence[str]) -> None:
        """Open the files an agent read, in the background (starting their server)."""
        if not self.settings.enabled:
            return
        for path, server in self._served(paths):
            task = asyncio.create_task(self._quietly_sync(server, path), name="lsp-touch")
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    @staticmethod
    async def _quietly_sync(server: LanguageServer, path: Path) -> None:
        with contextlib.suppress(ServerTrouble):  # noted in server.problems, shown by /lsp
            await server.sync(path)

    async def open(self, raw: str) -> tuple[LanguageServer, Path, Synced]:
        """The server for a project file, with the file open in it; NoServer or ServerTrouble."""
        path = self.resolve(raw)
        server = self.server_for(path)
        if server is None:
            raise NoServer(self.why_none(path))
        synced = await server.sync(path)
        if synced is None:
            raise NoServer(f"{shown_path(path, self.root)} is not a text file a server can read.")
        return server, path, synced

    async def diagnostics_for(self, raw: str) -> str:
        """lsp_diagnostics: the file's current diagnostics."""
        server, _, synced = await self.open(raw)
        published = await server.diagnostics(synced, self.settings.diagnostics_timeout_s)
        if published is None:
            return (f"Diagnostics ({server.name}), {self._shown(synced.uri)}: none arrived "
                    f"within {self.settings.diagnostics_timeout_s:g} s.")
        cap = max(self.settings.max_diagnostics, LISTED_DIAGNOSTICS)
        return "\n".join(self._file_lines(server, synced.uri, published.items, cap))

    # -- state ------------------------------------------------------------------------------
    def running(self) -> list[LanguageServer]:
        return [s for s in self._servers.values() if s is not None and s.alive]

    def status(self) -> list[ServerStatus]:
        """Each language and its server (found, not necessarily started), or none."""
        rows: list[ServerStatus] = []
        for language in LANGUAGES:
            if language not in self._servers:
                self._servers[language] = self._find(language)
            server = self._servers[language]
            if server is None:
                rows.append(ServerStatus(language, "", "none found"))
                continue
            rows.append(ServerStatus(
                language, server.name, server.state, server.found.source,
                " ".join(server.found.argv), server.pid, server.open_count(), server.restarts,
                tuple(server.problems), server.started_s))
        return rows

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        for server in self._servers.values():
            if server is not None:
                await server.stop()


def _errors(server: LanguageServer, uri: str) -> list[str]:
    published = server.board.latest.get(uri)
    return [_key(d) for d in (published.items if published else ())
            if d.get("severity", 1) == 1]


def _key(diagnostic: dict[str, Any]) -> str:
    """An error's identity across re-checks: its message and code (lines move)."""
    return f"{diagnostic.get('message')}|{diagnostic.get('code')}"
