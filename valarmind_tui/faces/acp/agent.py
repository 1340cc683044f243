"""The ACP agent: initialize, sessions (new, load, mode), prompt and cancel over `Session`s.

Every ACP session is one `Session` opened on the client's cwd with the same trust rules as the
other faces: the folder's own configuration loads only when the person trusted it
(`valarmind trust` or /trust in the TUI). Errors reach the client as JSON-RPC errors whose
message says what to do.
"""

from __future__ import annotations

import base64
import os
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse

from acp import PROTOCOL_VERSION, RequestError, helpers
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    AvailableCommand,
    AvailableCommandInput,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    StopReason,
    UnstructuredCommandInput,
)

from valarmind_tui import __version__
from valarmind_tui.commands.router import parse, run
from valarmind_tui.context.attachments import with_attachments
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.core.events import RunStatus
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.acp.link import SessionLink
from valarmind_tui.faces.acp.replay import replay_updates
from valarmind_tui.safety.gate.approval import PermissionMode
from valarmind_tui.session.records import offline_help
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import open_session
from valarmind_tui.settings.config import KNOWN_KEYS, McpServerConfig, load_settings
from valarmind_tui.settings.trust.decision import decide
from valarmind_tui.store.sessions import SessionStore

STOP_REASONS: dict[RunStatus, StopReason] = {
    RunStatus.DONE: "end_turn", RunStatus.INCOMPLETE: "max_turn_requests",
    RunStatus.CANCELLED: "cancelled", RunStatus.ESCALATED: "refusal",
    # the turn ended; its answer carries the gate report that says what failed
    RunStatus.UNVERIFIED: "end_turn", RunStatus.REJECTED: "end_turn",
    RunStatus.TIMEOUT: "cancelled", RunStatus.BUDGET: "max_turn_requests"}
MODES = {
    "default": "Asks before every write and command.",
    "accept-edits": "Edits inside the project pass; commands still ask.",
    "plan": "Read-only: the agent plans, nothing is written or run.",
    "bypass": "Everything passes except your deny rules and protected paths.",
}
NO_SUCH_SESSION = -32002
AUTH_REQUIRED = -32000


def error(code: int, message: str, **data: Any) -> RequestError:
    return RequestError(code, message, data or None)


class ValarMindAgent:
    """Implements the SDK's `acp.Agent` protocol; `flags` are the command line's settings."""

    def __init__(self, flags: dict[str, Any] | None = None) -> None:
        self.flags = {k: v for k, v in (flags or {}).items() if v is not None}
        self.client: Any = None
        self.links: dict[str, SessionLink] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    # -- connection -----------------------------------------------------------------------
    async def initialize(self, protocol_version: int, client_capabilities: Any = None,
                         client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True, image=True),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            auth_methods=[auth_method()],
            agent_info=Implementation(name="valarmind", title="ValarMind", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        """Nothing to log in to: succeeds when a model is configured (a provider key in the
        environment, the user's config or --model), else says how to configure one."""
        try:
            model = load_settings(Path.cwd(), trusted=False, **self.flags).resolve_model()
        except ValarMindError as exc:
            raise error(AUTH_REQUIRED, str(exc)) from None
        if model is None:
            raise error(AUTH_REQUIRED, offline_help())
        return AuthenticateResponse()

    # -- sessions -------------------------------------------------------------------------
    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None,
                          **kwargs: Any) -> NewSessionResponse:
        session = self._open(cwd)
        link = await self._start(session, mcp_servers)
        response = NewSessionResponse(session_id=link.session_id, modes=modes(session))
        link.start_after_reply()
        return response

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        old = self.links.pop(session_id, None)
        if old is not None:
            await old.close()
        session = self._open(cwd, resume=session_id)
        link = await self._start(session, mcp_servers)
        for update in replay_updates(session.transcript(limit=10_000), link.translator):
            await link.send(update)
        response = LoadSessionResponse(modes=modes(session))
        link.start_after_reply()
        return response

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> ListSessionsResponse:
        """The stored sessions (of `cwd` when given), newest first."""
        store = SessionStore(user_data_dir() / "sessions.db")
        try:
            found = store.list(Path(cwd).resolve() if cwd else None, limit=200)
        finally:
            store.close()
        return ListSessionsResponse(sessions=[
            SessionInfo(session_id=s.id, cwd=s.project_root, title=visible(s.title) or None,
                        updated_at=datetime.fromtimestamp(s.updated, UTC).isoformat())
            for s in found])

    async def set_session_mode(self, mode_id: str, session_id: str,
                               **kwargs: Any) -> SetSessionModeResponse:
        link = self._link(session_id)
        if mode_id not in MODES:
            raise error(-32602, f"unknown mode {mode_id!r}: choose one of {', '.join(MODES)}")
        link.session.set_mode(PermissionMode(mode_id))
        return SetSessionModeResponse()

    # -- prompts --------------------------------------------------------------------------
    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        link = self._link(session_id)
        session = link.session
        if session.busy:
            raise error(-32600, "A prompt is already running in this session: wait for it or "
                                "cancel it (session/cancel) first.")
        text = prompt_text(session, prompt)
        if not text.strip() and not session.pending_images:
            raise error(-32602, "The prompt is empty: send at least one text block.")
        slash = parse(text)
        if slash is not None:
            ran = await run(session, slash)
            await link.flush()
            await link.send(helpers.update_agent_message_text(visible(ran.text)))
            return PromptResponse(stop_reason="end_turn")
        if session.offline:
            raise error(AUTH_REQUIRED, offline_help())
        result = await session.submit(text)
        await link.flush()
        if result.status == RunStatus.FAILED:
            raise error(-32603, visible(result.text) or "The prompt failed; see the agent's log.")
        return PromptResponse(stop_reason=STOP_REASONS.get(result.status, "end_turn"))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        link = self.links.get(session_id)
        if link is not None:
            link.session.cancel()

    async def close(self) -> None:
        for link in list(self.links.values()):
            await link.close()
        self.links.clear()

    # -- helpers --------------------------------------------------------------------------
    def _link(self, session_id: str) -> SessionLink:
        link = self.links.get(session_id)
        if link is None:
            raise error(NO_SUCH_SESSION, f"No open session {session_id!r}: create one with "
                                         "session/new or reopen it with session/load.")
        return link

    def _open(self, cwd: str, resume: str | None = None) -> Session:
        root = Path(cwd)
        if not root.is_absolute() or not root.is_dir():
            raise error(-32602, f"cwd {cwd!r} is not an absolute path to a folder.")
        root = root.resolve()
        try:
            settings = load_settings(root, trusted=decide(root).trusted, **self.flags)
            return open_session(settings, root, resume=resume)
        except ValarMindError as exc:
            code = NO_SUCH_SESSION if resume else -32603
            raise error(code, str(exc)) from None

    async def _start(self, session: Session, mcp_servers: list[Any] | None) -> SessionLink:
        assert session.session_id is not None
        link = SessionLink(session, session.session_id, self.client)
        self.links[session.session_id] = link
        skipped = add_client_servers(session, mcp_servers or [])
        await session.start()
        for note in skipped:
            link.post(helpers.update_agent_thought_text(visible(note)))
        link.post(helpers.update_available_commands(available_commands(session)))
        return link


def auth_method() -> AuthMethodAgent:
    """How ValarMind finds a model: a provider key in its environment, or the user's config."""
    present = [k for k in KNOWN_KEYS if os.environ.get(k)]
    if present:
        description = f"Using the provider key in {present[0]}."
    else:
        description = (
            "No provider key is set in the agent's environment (" + ", ".join(KNOWN_KEYS)
            + "). Set one in the editor's agent server env, or set model and api_key_env in "
            "~/.config/valarmind/config.toml.")
    return AuthMethodAgent(id="provider-key", name="Provider API key", description=description)


def modes(session: Session) -> SessionModeState:
    return SessionModeState(
        current_mode_id=session.mode.value,
        available_modes=[SessionMode(id=m, name=m, description=d) for m, d in MODES.items()],
    )


def available_commands(session: Session) -> list[AvailableCommand]:
    """Every command; a description or hint from a file (custom commands, skills, MCP prompts)
    is made visible like any text from outside."""
    found = []
    for command in session.commands.all():
        hint = command.usage.split(" ", 1)[1] if " " in command.usage else ""
        found.append(AvailableCommand(
            name=visible(command.name), description=visible(command.help),
            input=AvailableCommandInput(UnstructuredCommandInput(hint=visible(hint)))
            if hint else None))
    return found


def add_client_servers(session: Session, servers: list[Any]) -> list[str]:
    """The client's MCP servers join the session's manager (stdio and HTTP); their env is what
    the client gave, nothing of ours. The person configured them in the editor, which starts
    them with the same power, so their tools' read-only hints are believed as for servers in
    the user's own config. Returns a note for each server that was left out."""
    skipped = []
    for server in servers:
        name = getattr(server, "name", "?")
        if getattr(server, "command", None):
            env = {e.name: e.value for e in server.env}
            config = McpServerConfig(command=server.command, args=list(server.args), env=env)
        elif getattr(server, "url", None) and getattr(server, "type", "http") == "http":
            if server.headers:
                skipped.append(f"MCP server {name!r} left out: HTTP headers are not supported.")
                continue
            config = McpServerConfig(url=server.url)
        else:
            skipped.append(f"MCP server {name!r} left out: only stdio and HTTP are supported.")
            continue
        session.mcp.configs[name] = config
        session.mcp.user_servers = session.mcp.user_servers | {name}
    return skipped


def prompt_text(session: Session, blocks: list[Any]) -> str:
    """The prompt's text, with embedded resources and project file links attached."""
    parts: list[str] = []
    files: dict[str, str] = {}
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            path = _project_path(session, block.uri)
            try:
                if path is None:
                    raise ValarMindError("outside the project")
                files[path] = session.attach(path)
            except (ValarMindError, OSError):
                parts.append(f"[{block.name}]({block.uri})")
        elif kind == "image":
            name = PurePosixPath(urlparse(block.uri or "").path).name or "image"
            try:
                session.add_image(base64.b64decode(block.data, validate=True), name)
            except (ValarMindError, ValueError) as exc:
                parts.append(f"[image {name} omitted: {exc}]")
        elif kind == "resource" and hasattr(block.resource, "text"):
            uri = block.resource.uri
            files[_project_path(session, uri) or uri] = block.resource.text
        else:
            parts.append(f"[{kind} omitted: ValarMind reads text, files and images only]")
    return with_attachments("\n".join(parts), files)


def _project_path(session: Session, uri: str) -> str | None:
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return None
    path = Path(unquote(parsed.path))
    if path.is_absolute():
        try:
            return str(path.resolve().relative_to(session.project_root))
        except ValueError:
            return None
    return str(path)
